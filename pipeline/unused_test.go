package pipeline

import (
	"strings"
	"testing"
)

// A parameter the profile's agents do not read, or agent properties
// outside YCSB, are refused naming the flag, not accepted and reported as
// overridden while changing nothing.
func TestUnusedOverridesAreRefused(t *testing.T) {
	cases := []struct {
		profile string
		flags   map[string]string
		want    []string // one message per flag
	}{
		{"kv-ycql", map[string]string{"records": "5", "load_threads": "7"}, []string{"--records: profile kv-ycql (kv) has no such parameter", "--load-threads: profile kv-ycql (kv) has no such parameter"}},
		{"sysbench-ysql", map[string]string{"operations": "5"}, []string{"--operations: profile sysbench-ysql (sysbench) has no such parameter"}},
		{"sysbench-ysql", map[string]string{"agent_properties": "x=1"}, []string{"--agent-properties: profile sysbench-ysql (sysbench) takes no agent properties"}},
		{"kv-ycql", map[string]string{"agent_properties": "x=1"}, []string{"--agent-properties: profile kv-ycql (kv) takes no agent properties"}},
	}
	for _, c := range cases {
		flags := map[string]string{"profile": c.profile, "runs_dir": t.TempDir()}
		for k, v := range c.flags {
			flags[k] = v
		}
		s, err := Load(CommandLine{Flags: flags})
		if err != nil {
			t.Fatalf("%v: load: %v", c.flags, err)
		}
		_, err = s.Resolve()
		if err == nil {
			t.Errorf("%s %v: accepted", c.profile, c.flags)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: %v\nwant %q", c.profile, c.flags, err, w)
			}
		}
	}
	// What the profile reads is still taken.
	for _, ok := range []struct{ profile, flag, value string }{
		{"kv-ycql", "threads", "8"}, {"kv-ycql", "duration", "10s"}, {"sysbench-ysql", "records", "2000"},
		{"ycsb-ysql", "agent_properties", "target=1000"}, {"ycsb-ycql", "operations", "100"},
	} {
		s, err := Load(CommandLine{Flags: map[string]string{"profile": ok.profile, ok.flag: ok.value, "runs_dir": t.TempDir()}})
		if err == nil {
			_, err = s.Resolve()
		}
		if err != nil {
			t.Errorf("%s --%s %s: %v", ok.profile, ok.flag, ok.value, err)
		}
	}
}
