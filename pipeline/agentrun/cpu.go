package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/record/hostcpu"
)

// SampleCPU reads the CPU counters of every db host (best effort: a host
// that cannot be read is left out, and the report says nothing of it).
func SampleCPU(ctx context.Context, r provision.Runner, dbs []infra.Host) map[string]hostcpu.Sample {
	out, _ := provision.Parallel(ctx, dbs, provision.ParallelOptions{}, func(ctx context.Context, h infra.Host) (*hostcpu.Sample, error) {
		script, err := CPUScript(h)
		if err != nil {
			return nil, err
		}
		res, err := r.Run(ctx, h, script, provision.Step("cpu"))
		if err != nil || res.ExitCode != 0 {
			return nil, err
		}
		s, err := ParseCPU(res.Stdout)
		if err != nil {
			return nil, err
		}
		return &s, nil
	})
	m := map[string]hostcpu.Sample{}
	for i, s := range out {
		if s != nil {
			m[dbs[i].Name] = *s
		}
	}
	return m
}

// ParseCPU reads what CPUScript prints.
func ParseCPU(out []byte) (hostcpu.Sample, error) {
	var s hostcpu.Sample
	d := json.NewDecoder(bytes.NewReader(out))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return s, fmt.Errorf("cpu reading %q: %w", out, err)
	}
	return s, s.Check()
}
