package collect

import (
	"strings"
)

// mdText is s as inline Markdown text that renders as the text it is:
// the characters CommonMark gives a meaning inline (emphasis, code, links,
// raw HTML, entities, table cells) escaped with a backslash, and line
// breaks made spaces, so that a user's string (a command line, a host
// name, a path, an error) can neither end the paragraph or list item it
// stands in nor open HTML.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '|', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is s as an inline code span: its content is literal in
// CommonMark, so only the span's own delimiters need care. The fence is
// one backtick longer than the longest run of backticks in s, padded with
// a space when s starts or ends with one, and line breaks become spaces
// (a blank line would end the span's paragraph).
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
