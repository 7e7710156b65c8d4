package main

import (
	"math"
	"strings"
	"testing"
)

// Lines in callgrind_annotate 3.19's format (--inclusive=no), as it prints
// them for a Go binary with symbols and for libc.
const annotateShort = `--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
77,884,466 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
53,927,358 (69.24%)  ./crypto/internal/fips140/sha256/sha256block_amd64.s:crypto/internal/fips140/sha256.blockAVX2.abi0 [/tmp/ybload-sym]
 3,931,734 ( 5.05%)  ./crypto/internal/fips140/pbkdf2/pbkdf2.go:crypto/internal/fips140/pbkdf2.Key[go.shape.interface { BlockSize() int; Sum([]uint8) []uint8 }] [/tmp/ybload-sym]
   100,000 ( 0.13%)  ./runtime/lock_futex.go:runtime.unlock2 [/tmp/ybload-sym]
    40,000 ( 0.05%)  ./runtime/lock_futex.go:runtime.unlock2'2 [/tmp/ybload-sym]
    50,000 ( 0.06%)  ./pgproto3/frontend.go:github.com/jackc/pgx/v5/pgproto3.(*Frontend).Receive [/tmp/ybload-sym]
     9,000 ( 0.01%)  ./runtime/proc.go:runtime.sysmon [/tmp/ybload-sym]
     8,000 ( 0.01%)  ./runtime/mgc.go:runtime.gcBgMarkWorker [/tmp/ybload-sym]
`

const annotateLong = `--------------------------------------------------------------------------------
 85,217,336 (100.0%)  PROGRAM TOTALS
--------------------------------------------------------------------------------
53,927,358 (63.28%)  ./crypto/internal/fips140/sha256/sha256block_amd64.s:crypto/internal/fips140/sha256.blockAVX2.abi0 [/tmp/ybload-sym]
 3,931,734 ( 4.61%)  ./crypto/internal/fips140/pbkdf2/pbkdf2.go:crypto/internal/fips140/pbkdf2.Key[go.shape.interface { BlockSize() int; Sum([]uint8) []uint8 }] [/tmp/ybload-sym]
   380,000 ( 0.45%)  ./runtime/lock_futex.go:runtime.unlock2 [/tmp/ybload-sym]
   140,000 ( 0.16%)  ./runtime/lock_futex.go:runtime.unlock2'2 [/tmp/ybload-sym]
   210,000 ( 0.25%)  ./pgproto3/frontend.go:github.com/jackc/pgx/v5/pgproto3.(*Frontend).Receive [/tmp/ybload-sym]
    82,400 ( 0.10%)  ./sysbench/conn.go:github.com/ybbench/ybbench/bench/sysbench.(*session).exec [/tmp/ybload-sym]
    12,000 ( 0.01%)  ???:_int_free [/usr/lib/x86_64-linux-gnu/libc.so.6]
     1,000 ( 0.00%)  ./runtime/proc.go:runtime.sysmon [/tmp/ybload-sym]
`

func TestSelfCostsFoldsRecursionAndDropsFileAndObject(t *testing.T) {
	m, err := selfCosts(strings.NewReader(annotateLong))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"crypto/internal/fips140/sha256.blockAVX2.abi0":                                                    53927358,
		"crypto/internal/fips140/pbkdf2.Key[go.shape.interface { BlockSize() int; Sum([]uint8) []uint8 }]": 3931734,
		"runtime.unlock2": 520000,
		"github.com/jackc/pgx/v5/pgproto3.(*Frontend).Receive":      210000,
		"github.com/ybbench/ybbench/bench/sysbench.(*session).exec": 82400,
		"_int_free":      12000,
		"runtime.sysmon": 1000,
	}
	if len(m) != len(want) {
		t.Errorf("parsed %d functions, want %d: %v", len(m), len(want), m)
	}
	for fn, n := range want {
		if m[fn] != n {
			t.Errorf("%s: %d, want %d", fn, m[fn], n)
		}
	}
}

func TestPerTxCostsIsTheDifferenceOverTheEvents(t *testing.T) {
	short, err := selfCosts(strings.NewReader(annotateShort))
	if err != nil {
		t.Fatal(err)
	}
	long, err := selfCosts(strings.NewReader(annotateLong))
	if err != nil {
		t.Fatal(err)
	}
	fns, total := perTxCosts(short, long, 800)
	// unlock2 (100+40 → 380+140 thousand): 475; Receive 200; exec 103;
	// _int_free 15; sysmon fell by 8000 and gcBgMarkWorker, in the short
	// run only, by 8000 (−10 each, in the total only); the start-up
	// functions are the same in both runs (0, left out).
	want := []fnCost{{"runtime.unlock2", 475}, {"github.com/jackc/pgx/v5/pgproto3.(*Frontend).Receive", 200},
		{"github.com/ybbench/ybbench/bench/sysbench.(*session).exec", 103}, {"_int_free", 15}}
	if len(fns) != len(want) {
		t.Fatalf("got %v, want %v", fns, want)
	}
	for i := range want {
		if fns[i].name != want[i].name || math.Abs(fns[i].perTx-want[i].perTx) > 1e-9 {
			t.Errorf("function %d: %v, want %v", i, fns[i], want[i])
		}
	}
	if math.Abs(total-(475+200+103+15-10-10)) > 1e-9 {
		t.Errorf("total %v, want 773", total)
	}
	for fn, g := range map[string]string{
		"runtime.unlock2":           "Go runtime (scheduler, network poller, timers, system calls)",
		"internal/poll.(*FD).Write": "Go runtime (scheduler, network poller, timers, system calls)",
		"github.com/jackc/pgx/v5/pgproto3.(*Frontend).Receive":      "pgx (pgconn, pgproto3)",
		"github.com/ybbench/ybbench/bench/sysbench.(*session).exec": "ybload's own code",
		"internal/strconv.formatBase10":                             "other (standard library, libc)",
	} {
		if got := instrGroup(fn); got != g {
			t.Errorf("instrGroup(%s) = %q, want %q", fn, got, g)
		}
	}
}
