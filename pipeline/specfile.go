package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/internal/yamlsyntax"
)

// FileError is a problem in a spec file, with its position.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// LoadFile lays a YAML spec file over s. Unknown fields and bad values are
// errors naming the file, line and field.
func LoadFile(s *Spec, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--spec: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file changes nothing
		}
		return yamlsyntax.Explain(path, b, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return &FileError{File: path, Line: extra.Line, Field: "(document)", Msg: "a second YAML document: a spec file holds one"}
	} else if !errors.Is(err, io.EOF) {
		return yamlsyntax.Explain(path, b, err)
	}
	if len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return &FileError{File: path, Line: m.Line, Field: "(top level)", Msg: "want a mapping of settings"}
	}
	var errs []error
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			errs = append(errs, &FileError{File: path, Line: k.Line, Field: k.Value, Msg: fmt.Sprintf("set twice (first on line %d)", line)})
			continue
		}
		seen[k.Value] = k.Line
		if _, known := settingByName(k.Value); !known {
			errs = append(errs, &FileError{File: path, Line: k.Line, Field: k.Value, Msg: "unknown setting (known: " + strings.Join(settingNames(), ", ") + ")"})
			continue
		}
		if err := setField(s, k.Value, v); err != nil {
			errs = append(errs, &FileError{File: path, Line: v.Line, Field: k.Value, Msg: err.Error()})
		}
		s.setFrom(k.Value, fmt.Sprintf("%s:%d: %s", path, v.Line, k.Value))
	}
	inferProvider(s, seen[inventorySetting] > 0, seen["provider"] > 0)
	return errors.Join(errs...)
}

// inferProvider: a layer that names an inventory file and no provider
// means the provider that reads inventory files, as --inventory alone does.
func inferProvider(s *Spec, inventory, provider bool) {
	if f, ok := builtin.FileProvider(); ok && inventory && !provider {
		s.Provider = f
	}
}

// settingNames lists the table's settings.
func settingNames() []string {
	out := make([]string, len(settings))
	for i, st := range settings {
		out[i] = st.Name
	}
	return out
}

// setField decodes one YAML value into the named field: a scalar goes
// through SetString as its text (so quotes are YAML's, not the value's),
// workloads may be a sequence and agent_properties a mapping.
func setField(s *Spec, name string, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		return SetString(s, name, v.Value)
	}
	st, _ := settingByName(name)
	switch p := st.field(s).(type) {
	case *[]string:
		if v.Kind == yaml.SequenceNode {
			var ws []string
			if err := v.Decode(&ws); err != nil {
				return fmt.Errorf("want a list of workload names: %v", err)
			}
			*p = ws
			return nil
		}
	case *map[string]string:
		if v.Kind == yaml.MappingNode {
			var m map[string]string
			if err := v.Decode(&m); err != nil {
				return fmt.Errorf("want a mapping of property names to values: %v", err)
			}
			*p = m
			return nil
		}
	}
	return errors.New("want a single value")
}
