// Package yamlsyntax says where a file that is not YAML goes wrong, in
// the words a user can act on: file:line:column and what to change. The
// spec file and the inventory are both read through it.
package yamlsyntax

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is a syntax error at a place in a file (Line 0: the parser did
// not say where; Column 0: the line as a whole).
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// parserLine is the line the YAML parser puts in its syntax errors.
var parserLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Explain turns the YAML parser's error about text (read from file) into
// an *Error: a tab, which YAML never takes for indentation and the parser
// reports as a character that "cannot start any token", at its line and
// column; else the parser's message at its line when it gives one. Any
// other error is returned prefixed with the file.
func Explain(file string, text []byte, err error) error {
	for i, l := range strings.Split(string(text), "\n") {
		if c := strings.IndexByte(l, '\t'); c >= 0 {
			return &Error{File: file, Line: i + 1, Column: c + 1, Msg: "tabs are not allowed in YAML; use spaces"}
		}
	}
	if m := parserLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n, Msg: m[2]}
	}
	if msg, ok := strings.CutPrefix(err.Error(), "yaml: "); ok {
		return &Error{File: file, Msg: msg}
	}
	return fmt.Errorf("%s: %w", file, err)
}
