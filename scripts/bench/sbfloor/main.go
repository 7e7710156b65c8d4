// Command sbfloor is the floor of the sysbench benchmark: oltp_point_select's
// statement (SELECT c FROM sbtestN WHERE id=$1, prepared per table, text
// parameter, binary result, as sysbench sends it) from a bare pgconn loop
// with a uniform draw of table and id, no retries and no measurement. What
// a real client costs above it is the price of sysbench's accounting.
//
// It prints its count in sysbench's layout ("transactions: N (X per sec.)")
// so the side-by-side harness reads it as it reads the tools.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	url := flag.String("url", "", "postgres:// URL of the database holding sbtest1..N")
	threads := flag.Int("threads", 16, "workers, one connection each")
	tables := flag.Int("tables", 4, "tables sbtest1..N")
	rows := flag.Int64("table-size", 50000, "rows per table")
	seconds := flag.Int("time", 30, "seconds to run; 0: until -events are done")
	events := flag.Int64("events", 0, "transactions in all, shared by the workers (sysbench's --events); 0: no limit")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "sbfloor: -url is required")
		os.Exit(2)
	}
	if *seconds == 0 && *events == 0 {
		fmt.Fprintln(os.Stderr, "sbfloor: -time=0 needs -events")
		os.Exit(2)
	}
	ctx := context.Background()
	conns := make([]*pgconn.PgConn, *threads)
	for i := range conns {
		c, err := pgconn.Connect(ctx, *url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sbfloor:", err)
			os.Exit(5)
		}
		for t := 1; t <= *tables; t++ {
			if _, err := c.Prepare(ctx, "ps"+strconv.Itoa(t), fmt.Sprintf("SELECT c FROM sbtest%d WHERE id=$1", t), []uint32{20}); err != nil {
				fmt.Fprintln(os.Stderr, "sbfloor:", err)
				os.Exit(5)
			}
		}
		conns[i] = c
	}
	names := make([]string, *tables+1)
	for t := 1; t <= *tables; t++ {
		names[t] = "ps" + strconv.Itoa(t)
	}
	var stop atomic.Bool
	var total atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	if *seconds > 0 {
		time.AfterFunc(time.Duration(*seconds)*time.Second, func() { stop.Store(true) })
	}
	// left is the events not yet claimed; a worker claims one before each
	// transaction, so that a fixed run does exactly -events, as sysbench's.
	var left atomic.Int64
	left.Store(*events)
	for i, c := range conns {
		wg.Add(1)
		go func(id int, c *pgconn.PgConn) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(id), 11))
			params := make([][]byte, 1)
			var buf []byte
			formats := []int16{1}
			var n int64
			for !stop.Load() {
				if *events > 0 && left.Add(-1) < 0 {
					break
				}
				t := 1 + r.IntN(*tables)
				buf = strconv.AppendInt(buf[:0], 1+r.Int64N(*rows), 10)
				params[0] = buf
				if _, err := c.ExecPrepared(context.Background(), names[t], params, nil, formats).Close(); err != nil {
					failed.Store(err)
					break
				}
				n++
			}
			total.Add(n)
		}(i, c)
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	for _, c := range conns {
		c.Close(ctx)
	}
	if err, ok := failed.Load().(error); ok {
		fmt.Fprintln(os.Stderr, "sbfloor:", err)
		os.Exit(5)
	}
	n := total.Load()
	fmt.Printf("    transactions:                        %-6d (%.2f per sec.)\n", n, float64(n)/el)
	fmt.Printf("        read:                            %d\n        write:                           0\n        other:                           0\n", n)
}
