package ycsb

import (
	"context"
	"testing"

	"github.com/ybbench/ybbench/bench"
	"github.com/ybbench/ybbench/internal/cpubench"
)

func BenchmarkScrambledZipfian(b *testing.B) {
	g := NewScrambledZipfian(0, 1_000_000)
	r := seeded()
	for i := 0; i < b.N; i++ {
		g.Next(r)
	}
}

func BenchmarkKeyName(b *testing.B) {
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = KeyName(buf, "user", int64(i), 1, false)
	}
}

func BenchmarkRandomValue100(b *testing.B) {
	r := seeded()
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = RandomValue(100, r).AppendTo(buf[:0])
	}
}

// BenchmarkWorkloadANull is one YCSB workload A operation on the null
// binding through the engine: the agent's whole cost per operation.
func BenchmarkWorkloadANull(b *testing.B) {
	p := NewProps()
	data, _ := BuiltinWorkload("workloada")
	p.LoadFile("workloada", data)
	p.SetFlag("recordcount", "1000000", "-p")
	cfg, err := ReadConfig(p)
	if err != nil {
		b.Fatal(err)
	}
	core, err := NewCore(cfg, false, NullBinding{}, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer cpubench.Report(b, cpubench.Now())
	res, err := bench.Run(context.Background(), core, bench.Config{Threads: 2, Operations: int64(b.N)})
	if err != nil || res.Ops != int64(b.N) {
		b.Fatal(err)
	}
}

func BenchmarkDeterministicValue100(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = deterministicValue("user6284781860667377211", "field0", 100)
	}
}
