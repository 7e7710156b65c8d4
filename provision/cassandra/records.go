package cassandra

import "strings"

// records are the "CASS <key> <value>" lines a script prints on stdout,
// in order; other lines are ignored.
type records []record

type record struct{ key, value string }

func parseRecords(out []byte) records {
	var rs records
	for _, l := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(l, "CASS ")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(rest, " ")
		rs = append(rs, record{k, v})
	}
	return rs
}

// last is the last value of a key.
func (rs records) last(key string) (string, bool) {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].key == key {
			return rs[i].value, true
		}
	}
	return "", false
}

// all are every value of a key, in order.
func (rs records) all(key string) []string {
	var out []string
	for _, r := range rs {
		if r.key == key {
			out = append(out, r.value)
		}
	}
	return out
}
