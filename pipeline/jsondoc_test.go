package pipeline

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// docs/json-output.md documents every field of the JSON that status,
// runs, profiles, plan and janitor print, and each shape's schema name: a field
// added to a type and not to the page fails here.
func TestJSONOutputIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/json-output.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, schema := range []string{RunsSchema, StatusSchema, ProfilesSchema, PlanSchema, JanitorSchema} {
		if !strings.Contains(doc, "`"+schema+"`") {
			t.Errorf("docs/json-output.md does not name the schema %s", schema)
		}
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() == "time" {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.Anonymous && name != "-" && !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/json-output.md does not document %s's field %s", ty, name)
			}
			walk(f.Type)
		}
	}
	for _, v := range []any{RunList{}, Status{}, ProfileList{}, Plan{}, JanitorReport{}} {
		walk(reflect.TypeOf(v))
	}
}
