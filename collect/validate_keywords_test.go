package collect

import (
	"encoding/json"
	"sort"
	"testing"
)

// Every keyword result.schema.json uses is one the checker honours: an
// unknown one fails only when a value reaches its node, which a result
// without that part never does (a sweep's resolution with "maximum" once
// passed every unit test and failed every real sweep).
func TestSchemaUsesOnlyKnownKeywords(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(resultSchema, &root); err != nil {
		t.Fatal(err)
	}
	var unknown []string
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		for k, v := range s {
			if !known[k] {
				unknown = append(unknown, path+": "+k)
			}
			switch k {
			case "properties", "$defs":
				for name, sub := range v.(map[string]any) {
					if m, ok := sub.(map[string]any); ok {
						walk(path+"."+name, m)
					}
				}
			case "items", "additionalProperties":
				if m, ok := v.(map[string]any); ok {
					walk(path+"[]", m)
				}
			}
		}
	}
	walk("$", root)
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("result.schema.json uses keywords the checker does not implement: %q", unknown)
	}
	if len(known) < 10 {
		t.Fatalf("the checker knows %d keywords", len(known))
	}
}
