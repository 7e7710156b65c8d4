//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/ybbench/ybbench/collect"
)

// schemaCoverage gathers the fields of the result.json files the e2e runs
// wrote (checkSchema hands each to it): TestE2EZResultSchemaCovered then
// holds result.schema.json's fields to what real runs write.
var schemaCoverage struct {
	sync.Mutex
	results int
	seen    map[string]bool
}

// coverResult records the schema paths a real result holds.
func coverResult(doc []byte) {
	var schema map[string]any
	if err := json.Unmarshal(collect.SchemaJSON(), &schema); err != nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return
	}
	schemaCoverage.Lock()
	defer schemaCoverage.Unlock()
	if schemaCoverage.seen == nil {
		schemaCoverage.seen = map[string]bool{}
	}
	schemaCoverage.results++
	walkDoc(schema, schema, v, "$", schemaCoverage.seen)
}

// resolve follows a local $ref ("#/$defs/name").
func resolve(root, s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		defs, _ := root["$defs"].(map[string]any)
		next, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if next == nil {
			return s
		}
		s = next
	}
}

// walkDoc marks the path of every field of v that s describes: a declared
// property as path.name, a map's value as path.*, an item as path[].
func walkDoc(root, s map[string]any, v any, path string, seen map[string]bool) {
	s = resolve(root, s)
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		for k, val := range x {
			if ps, ok := props[k].(map[string]any); ok {
				seen[path+"."+k] = true
				walkDoc(root, ps, val, path+"."+k, seen)
			} else if extra != nil {
				seen[path+".*"] = true
				walkDoc(root, extra, val, path+".*", seen)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for _, it := range x {
				walkDoc(root, items, it, path+"[]", seen)
			}
		}
	}
}

// schemaFields lists every field path result.schema.json declares (a
// definition's fields under each place it is used, once per place).
func schemaFields() []string {
	var schema map[string]any
	if err := json.Unmarshal(collect.SchemaJSON(), &schema); err != nil {
		return nil
	}
	out := map[string]bool{}
	var walk func(s map[string]any, path string, depth int)
	walk = func(s map[string]any, path string, depth int) {
		if depth > 12 {
			return
		}
		s = resolve(schema, s)
		if props, ok := s["properties"].(map[string]any); ok {
			for k, ps := range props {
				out[path+"."+k] = true
				walk(ps.(map[string]any), path+"."+k, depth+1)
			}
		}
		if extra, ok := s["additionalProperties"].(map[string]any); ok {
			out[path+".*"] = true
			walk(extra, path+".*", depth+1)
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, path+"[]", depth+1)
		}
	}
	walk(schema, "$", 0)
	fields := make([]string, 0, len(out))
	for f := range out {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return fields
}
