// Package shellquote makes words and command lines for a POSIX shell. It is
// shared by what writes remote commands (provision) and what prints the
// commands a person may paste (infra/local's teardown hints), so both quote
// alike.
package shellquote

import "strings"

// Quote makes s one word for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else single-quoted, with embedded
// single quotes closed, escaped and reopened.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join makes a command line of args, each quoted as Quote does: one a user
// can paste into a shell, or a remote command.
func Join(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}
