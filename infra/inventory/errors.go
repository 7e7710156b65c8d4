package inventory

import "fmt"

// Error is a problem in the inventory file: file, line (0: the file as a
// whole), column (0: the line as a whole), field ("" for none).
type Error struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
}

func (e *Error) Error() string {
	at := e.File
	if e.Line > 0 {
		at += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			at += fmt.Sprintf(":%d", e.Column)
		}
	}
	if e.Field == "" {
		return at + ": " + e.Msg
	}
	return at + ": " + e.Field + ": " + e.Msg
}

// validator gathers the file's problems, so that they are all said at once.
type validator struct {
	file string
	errs []error
	seen map[Error]bool
}

// add records a problem once: a value of the defaults is every host's,
// and its problem is said once, at its own line.
func (v *validator) add(line int, field, msg string) {
	e := Error{File: v.file, Line: line, Field: field, Msg: msg}
	if v.seen[e] {
		return
	}
	if v.seen == nil {
		v.seen = map[Error]bool{}
	}
	v.seen[e] = true
	v.errs = append(v.errs, &e)
}
