package pipeline

import (
	"os"

	"gopkg.in/yaml.v3"
)

// Origins says, for every setting a command line gave, which layer gave
// the value the run uses: the flag ("--records"), a preset ("--quick"), a
// variable ("YBBENCH_RECORDS") or the spec file ("spec file run.yaml").
// It follows Load's order — spec file < YBBENCH_* < presets < flags, a
// preset skipping what a flag names and what its condition excludes — so
// that the report can say who overrode a profile's parameter. A layer Load
// refuses is reported by Load; here it is only not counted.
func Origins(cl CommandLine) map[string]string {
	out := map[string]string{}
	if cl.File != "" {
		for _, k := range specFileKeys(cl.File) {
			out[k] = "spec file " + cl.File
		}
	}
	if cl.Getenv != nil {
		for _, st := range settings {
			if cl.Getenv(EnvName(st.Name)) != "" {
				out[st.Name] = EnvName(st.Name)
			}
		}
	}
	// A preset's conditions are judged on the spec the flags made, as
	// Load judges them.
	s, _ := Load(cl)
	for _, a := range presetValues(cl, &s) {
		out[a.v.Setting] = "--" + a.preset
	}
	for name := range cl.Flags {
		out[name] = "--" + FlagName(name)
	}
	return out
}

// specFileKeys lists the settings a spec file names (none when it cannot
// be read: Load says why).
func specFileKeys(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(b, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	var keys []string
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys
}
