package collect

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// resultSchema is result.schema.json, the JSON Schema of ybbench-result/3.
//
//go:embed result.schema.json
var resultSchema []byte

// SchemaJSON returns result.schema.json.
func SchemaJSON() []byte { return bytes.Clone(resultSchema) }

// Validate checks a result.json document against result.schema.json.
//
// It implements the part of JSON Schema that file uses — type, const,
// enum, required, properties, additionalProperties, items, minItems, minimum,
// format date-time and local $ref — and refuses a schema that uses any
// other keyword, so that a schema the checker cannot honour fails loudly
// instead of passing everything.
func Validate(doc []byte) error {
	return ValidateAgainst(resultSchema, doc)
}

// ValidateAgainst checks a JSON document against a schema that keeps to
// the keywords Validate implements, so that the other documents a run
// writes beside result.json (verdict.json) are checked the same way.
func ValidateAgainst(schemaJSON, doc []byte) error {
	var schema map[string]any
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return fmt.Errorf("the schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the document: %w", err)
	}
	c := &checker{root: schema}
	c.check("$", schema, v)
	return errors.Join(c.errs...)
}

// ValidateResult marshals a result and validates it.
func ValidateResult(r *Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return Validate(b)
}

type checker struct {
	root map[string]any
	errs []error
}

func (c *checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

// known are the keywords check honours (or that only document).
var known = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "$defs": true,
	"$ref": true, "type": true, "const": true, "enum": true, "required": true, "properties": true,
	"additionalProperties": true, "items": true, "minimum": true, "minItems": true, "format": true}

func (c *checker) check(path string, s map[string]any, v any) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			c.fail(path, "the schema uses %q, which this checker does not implement", k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		def, err := c.resolve(ref)
		if err != nil {
			c.fail(path, "%v", err)
			return
		}
		c.check(path, def, v)
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		c.fail(path, "is %s, want %v", jsonType(v), t)
		return
	}
	if want, ok := s["const"]; ok && !equal(want, v) {
		c.fail(path, "is %v, want %v", v, want)
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || equal(e, v)
		}
		if !found {
			c.fail(path, "is %v, want one of %v", v, enum)
		}
	}
	if min, ok := s["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if f, _ := n.Float64(); f < min {
				c.fail(path, "is %v, below the minimum %v", f, min)
			}
		}
	}
	if f, ok := s["format"].(string); ok && f == "date-time" {
		if str, isStr := v.(string); isStr {
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				c.fail(path, "is not a date-time: %v", err)
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		c.object(path, s, x)
	case []any:
		if min, ok := s["minItems"].(float64); ok && float64(len(x)) < min {
			c.fail(path, "has %d items, fewer than the minimum %v", len(x), min)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				c.check(fmt.Sprintf("%s[%d]", path, i), items, e)
			}
		}
	}
}

func (c *checker) object(path string, s map[string]any, x map[string]any) {
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, has := x[r.(string)]; !has {
				c.fail(path, "lacks the required %q", r)
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(x))
	for k := range x {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if p, ok := props[k].(map[string]any); ok {
			c.check(path+"."+k, p, x[k])
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				c.fail(path, "has %q, which the schema does not allow", k)
			}
		case map[string]any:
			c.check(path+"."+k, ap, x[k])
		}
	}
}

func (c *checker) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only #/$defs/… is supported", ref)
	}
	defs, _ := c.root["$defs"].(map[string]any)
	def, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: no such definition", ref)
	}
	return def, nil
}

func typeMatches(t any, v any) bool {
	switch t := t.(type) {
	case string:
		return typeIs(t, v)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && typeIs(s, v) {
				return true
			}
		}
	}
	return false
}

func typeIs(t string, v any) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return jsonType(v) == t
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal compares a schema value (decoded without UseNumber) with a
// document value (decoded with it).
func equal(schema, v any) bool {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return err == nil && reflect.DeepEqual(schema, f)
	}
	return reflect.DeepEqual(schema, v)
}
