package provision

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/ybbench/ybbench/internal/shellquote"
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckEnv checks what a step puts in a remote command's environment, the
// same way for every runner: names are shell identifiers and no value holds
// a NUL byte (an environment cannot carry one).
func CheckEnv(env map[string]string) error {
	for k, v := range env {
		if !envName.MatchString(k) {
			return fmt.Errorf("environment variable name %q is not a shell identifier", k)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("environment variable %s: value holds a NUL byte", k)
		}
	}
	return nil
}

// QuoteFuncs are the script templates' quoting functions: `{{q .X}}` (any
// value, formatted with %v, as one shell word) and `{{qjoin " " .List}}`
// (each element quoted, joined by the separator).
var QuoteFuncs = template.FuncMap{
	"q": func(v any) string { return shellquote.Quote(fmt.Sprint(v)) },
	"qjoin": func(sep string, items []string) string {
		out := make([]string, len(items))
		for i, s := range items {
			out[i] = shellquote.Quote(s)
		}
		return strings.Join(out, sep)
	},
}

// RenderWith executes a script template, parsed with missingkey=error,
// with extra template functions (e.g. a flavor's own quoting for SQL
// literals; nil for none). Values go into shell code through the q
// function (shell-quoted): `{{q .Dir}}`. A bare `{{.X}}` is not refused;
// templates use it only in comments and configuration heredocs, for values
// CheckDBHosts has limited to safe characters (host names, IPs, user
// names, directories).
func RenderWith(name, text string, data any, funcs template.FuncMap) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Funcs(QuoteFuncs).Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
