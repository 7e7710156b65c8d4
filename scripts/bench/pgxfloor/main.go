// Command pgxfloor is the floor of the YCSB benchmarks: the same prepared
// reads and one-field updates as YCSB's JDBC binding on YCSB's keys, from a
// bare pgx loop with no key generator beyond a uniform draw, no value
// generator beyond a fixed buffer, and no measurement. What a real client
// costs above it is the price of generators and measurement.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/bench/ycsb"
)

func main() {
	url := flag.String("url", "", "postgres:// URL of the database holding usertable")
	threads := flag.Int("threads", 32, "workers")
	ops := flag.Int64("ops", 100000, "operations in all")
	records := flag.Int64("records", 100000, "records loaded (keys are YCSB's hashed keys 0..records-1)")
	readFrac := flag.Float64("read", 1.0, "fraction of reads; the rest are updates of one field")
	flag.Parse()
	if *url == "" || *threads < 1 || *ops < 1 || *records < 1 || *readFrac < 0 || *readFrac > 1 {
		fmt.Fprintln(os.Stderr, "pgxfloor: want -url, -threads ≥ 1, -ops ≥ 1, -records ≥ 1 and 0 ≤ -read ≤ 1")
		os.Exit(2)
	}
	if *url == "" {
		fmt.Fprintln(os.Stderr, "pgxfloor: -url is required")
		os.Exit(2)
	}
	keys := make([]string, *records)
	for i := range keys {
		keys[i] = string(ycsb.KeyName(nil, "user", int64(i), 1, false))
	}
	value := make([]byte, 100)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	updates := make([]string, 10)
	for i := range updates {
		updates[i] = fmt.Sprintf("UPDATE usertable SET field%d=$1 WHERE YCSB_KEY = $2", i)
	}
	var left atomic.Int64
	left.Store(*ops)
	var wg sync.WaitGroup
	errs := make(chan error, *threads)
	start := time.Now()
	for t := 0; t < *threads; t++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, *url)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			r := rand.New(rand.NewPCG(uint64(id), 7))
			for left.Add(-1) >= 0 {
				key := keys[r.Uint64()%uint64(len(keys))]
				if r.Float64() < *readFrac {
					rows, err := conn.Query(ctx, "SELECT * FROM usertable WHERE YCSB_KEY = $1", key)
					if err != nil {
						errs <- err
						return
					}
					rows.Next()
					rows.Close()
					// pgx reports a server's error only here: a failed read
					// must not count as an operation.
					if err := rows.Err(); err != nil {
						errs <- err
						return
					}
				} else {
					if _, err := conn.Exec(ctx, updates[r.IntN(len(updates))], value, key); err != nil {
						errs <- err
						return
					}
				}
			}
		}(t)
	}
	wg.Wait()
	el := time.Since(start)
	select {
	case err := <-errs:
		fmt.Fprintln(os.Stderr, "pgxfloor:", err)
		os.Exit(5)
	default:
	}
	fmt.Printf("[OVERALL], RunTime(ms), %d\n[OVERALL], Throughput(ops/sec), %f\n", el.Milliseconds(), float64(*ops)/el.Seconds())
}
