package sysbench

import (
	"fmt"
	"os"
	"strings"
)

// readConfigFile reads sysbench's --config-file: one name=value option per
// line, taken as if given on the command line at the file's place. As in
// sysbench 1.0.20, a line naming no option it knows (a comment, a blank
// line, "name = value" with blanks) is passed over; a known option's value
// is checked with the others.
func readConfigFile(path string, vals map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config-file=%s: %w", path, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(strings.TrimSuffix(line, "\r"), "=")
		if !ok || name == "" || strings.HasPrefix(name, "-") {
			continue
		}
		name = canonical(name)
		if _, known := findOpt(name); !known || name == "config_file" {
			continue
		}
		vals[name] = val
	}
	return nil
}
