package inventory

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type .*$`)
	badValue     = regexp.MustCompile(`^line (\d+): (cannot unmarshal .*)$`)
)

// onlyUnknownFields reports whether err is the decoder's type error and
// names nothing but fields the inventory does not have.
func onlyUnknownFields(err error) bool {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return false
	}
	for _, e := range te.Errors {
		if !unknownField.MatchString(e) {
			return false
		}
	}
	return true
}

// yamlErrors rewrites the YAML decoder's errors as file:line: field:
// message, an unknown field named by its path in the document
// (hosts[0].colour), as every other problem is.
func yamlErrors(name string, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", name, err)
	}
	var out []error
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			field := m[2]
			if line, err := strconv.Atoi(m[1]); err == nil {
				if p := keyPath(root, line, field, ""); p != "" {
					field = p
				}
			}
			out = append(out, fmt.Errorf("%s:%s: %s: unknown field", name, m[1], field))
			continue
		}
		if m := badValue.FindStringSubmatch(e); m != nil {
			out = append(out, fmt.Errorf("%s:%s: %s", name, m[1], m[2]))
			continue
		}
		out = append(out, fmt.Errorf("%s: %s", name, e))
	}
	return errors.Join(out...)
}

// keyPath is the path (hosts[0].ssh.port) of the mapping key named key on
// line line under n, at path at; "" when there is none.
func keyPath(n *yaml.Node, line int, key, at string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := keyPath(c, line, key, at); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if at != "" {
				p = at + "." + k.Value
			}
			if k.Line == line && k.Value == key {
				return p
			}
			if q := keyPath(v, line, key, p); q != "" {
				return q
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := keyPath(c, line, key, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}
