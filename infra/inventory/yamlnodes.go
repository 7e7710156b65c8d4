package inventory

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// origin says where a host's value of a field (a dotted path, ssh.key)
// is written: in the host's own entry when it sets it, else in the
// defaults when they do, else nowhere (it is missing: the host's entry).
func origin(i int, host, defaults *yaml.Node, path string) (string, int) {
	if n := walk(host, path); n != nil {
		return fmt.Sprintf("hosts[%d].%s", i, path), n.Line
	}
	if n := walk(defaults, path); n != nil {
		return "defaults." + path, n.Line
	}
	return fmt.Sprintf("hosts[%d].%s", i, path), line(host, nil)
}

// walk follows a dotted path of mapping keys from n (nil when absent).
func walk(n *yaml.Node, path string) *yaml.Node {
	for _, k := range strings.Split(path, ".") {
		n = child(n, k)
	}
	return n
}

// child returns the value node of key in a mapping node.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// line is n's line, else fallback's, else the first: a problem always
// names a line to look at.
func line(n, fallback *yaml.Node) int {
	if n != nil {
		return n.Line
	}
	if fallback != nil {
		return fallback.Line
	}
	return 1
}
