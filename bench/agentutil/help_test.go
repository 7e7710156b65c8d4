package agentutil

import "testing"

func TestIsHelpFlag(t *testing.T) {
	for arg, want := range map[string]bool{
		"-h": true, "-help": true, "--help": true,
		"--h": false, "help": false, "-hh": false, "--help=on": false, "": false, "-H": false,
	} {
		if got := IsHelpFlag(arg); got != want {
			t.Errorf("IsHelpFlag(%q) = %v, want %v", arg, got, want)
		}
	}
}
