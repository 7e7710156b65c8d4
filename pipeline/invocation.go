package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/atomicfile"
	"github.com/ybbench/ybbench/provision"
)

// InvocationsFile is the run file that records every ybbench command that
// worked on the run (its command line, redacted, and the tool's version),
// and what the command that created the run resolved: which settings the
// user overrode and which a default chose. The settings in run.json are
// the resolved ones and cannot tell these apart once read back.
const InvocationsFile = "invocations.json"

// InvocationsSchema versions invocations.json.
const InvocationsSchema = "ybbench-invocations/1"

// invocationsDoc is invocations.json.
type invocationsDoc struct {
	Schema string `json:"schema"`
	// Overridden and Chosen are as the creating command resolved them,
	// and OverriddenBy which flag, preset, variable or file overrode each.
	Overridden   []string             `json:"overridden"`
	OverriddenBy map[string]string    `json:"overridden_by,omitempty"`
	Chosen       []collect.Choice     `json:"chosen,omitempty"`
	Invocations  []collect.Invocation `json:"invocations"`
}

// recordCreation writes invocations.json for a new run: what the spec
// resolved to, and the command that created it.
func (r *Run) recordCreation() error {
	doc := invocationsDoc{Schema: InvocationsSchema, Overridden: r.spec.Overridden, Chosen: r.spec.Chosen,
		Invocations: []collect.Invocation{}}
	if doc.Overridden == nil {
		doc.Overridden = []string{}
	}
	for _, o := range doc.Overridden {
		if by := r.spec.Origins[o]; by != "" {
			if doc.OverriddenBy == nil {
				doc.OverriddenBy = map[string]string{}
			}
			doc.OverriddenBy[o] = by
		}
	}
	if inv, ok := r.invocation(); ok {
		doc.Invocations = append(doc.Invocations, inv)
	}
	return atomicfile.WriteJSON(filepath.Join(r.dir, InvocationsFile), doc, 0o644)
}

// recordInvocation adds the running command to invocations.json (a run
// created before the file existed gets none: its creation is unknown).
func (r *Run) recordInvocation() error {
	inv, ok := r.invocation()
	if !ok {
		return nil
	}
	doc, found, err := readInvocations(r.dir)
	if err != nil || !found {
		return err
	}
	doc.Invocations = append(doc.Invocations, inv)
	return atomicfile.WriteJSON(filepath.Join(r.dir, InvocationsFile), doc, 0o644)
}

// readInvocations reads a run's invocations.json.
func readInvocations(dir string) (*invocationsDoc, bool, error) {
	var doc invocationsDoc
	err := readJSON(filepath.Join(dir, InvocationsFile), &doc)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if doc.Schema != InvocationsSchema {
		return nil, false, fmt.Errorf("%s: schema %q, not %s", InvocationsFile, doc.Schema, InvocationsSchema)
	}
	return &doc, true, nil
}

// invocation is the running command as recorded: none when the deps
// carry no command line (a test, a library use).
func (r *Run) invocation() (collect.Invocation, bool) {
	if len(r.deps.Args) == 0 {
		return collect.Invocation{}, false
	}
	tool := r.deps.Tool
	if tool == "" {
		tool = "ybbench " + Version
	}
	return collect.Invocation{At: time.Now().UTC(), Tool: tool, Args: redactArgs(r.deps.Args), Env: settingsEnv(r.deps.Environ)}, true
}

// secretPair matches a name=value pair whose name says it may hold a
// secret (an agent property such as ysql.passwd, --agent-properties=…,
// a YBBENCH_* variable); a URL's token or userinfo is RedactURL's.
var secretPair = regexp.MustCompile(`(?i)([\w.-]*(?:pass|pwd|secret|token|credential|private|api_?key)[\w.-]*)=([^,]*)`)

// redactArgs is a command line as it may be recorded: every URL through
// provision.RedactURL (a signed tarball URL's token, userinfo), and the
// value of every name=value pair whose name says it is a secret.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactArg(a)
	}
	return out
}

// redactArg redacts one argument (or one variable's NAME=value): every
// URL in it, however many a comma list holds, then every secret pair.
func redactArg(a string) string {
	a = urlInArg.ReplaceAllStringFunc(a, provision.RedactURL)
	return secretPair.ReplaceAllString(a, "${1}="+provision.Redacted)
}

// urlInArg matches a URL inside an argument: from its scheme to the next
// separator of a list (--agent-properties=a.url=http://…,b.url=http://…).
var urlInArg = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^,\s]*`)

// settingsEnv lists the YBBENCH_* variables of environ (NAME=value,
// redacted, sorted): settings given that way shaped the run as much as
// flags did.
func settingsEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "YBBENCH_") {
			out = append(out, redactArg(kv))
		}
	}
	sort.Strings(out)
	return out
}
