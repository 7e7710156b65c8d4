package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// clockScript answers each line on stdin with the host's time. `date` is
// looked up through PATH on every reading.
const clockScript = "while IFS= read -r _; do date +%s.%N; done\n"

// clockSampleTimeout bounds the wait for one clock reading.
const clockSampleTimeout = 15 * time.Second

// measureClock reads the host's clock samples times in one session: a line
// is written to the command's stdin and the time is taken just before
// that and just after the answer arrives, so the round trip covers the
// network and one `date`, not the session setup. The sample with the
// shortest round trip gives skew = remote − midpoint and uncertainty =
// half the round trip.
func measureClock(ctx context.Context, r Runner, h infra.Host, samples int) (skew, uncertainty time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	// A reader that stops reading must not block the command's output.
	clock := make(chan string, 64)
	lines := &LineWriter{Fn: func(l string) {
		select {
		case clock <- l:
		default:
		}
	}}
	type runOut struct {
		res Result
		err error
	}
	done := make(chan runOut, 1)
	go func() {
		res, err := r.Run(ctx, h, clockScript, Step("preflight-clock"), Stdin(pr), Output(lines, nil))
		// Unblocks a pending write when the command never read its stdin.
		pr.CloseWithError(errors.New("clock command ended"))
		done <- runOut{res, err}
	}()
	ended := func(o runOut) error {
		if o.err != nil {
			return o.err
		}
		return fmt.Errorf("clock command ended early (exit %d): %s", o.res.ExitCode, strings.TrimSpace(tail(o.res.Stderr, 512)))
	}

	best := time.Duration(-1)
	for range samples {
		before := time.Now()
		if _, err := pw.Write([]byte{'\n'}); err != nil {
			return 0, 0, ended(<-done)
		}
		var line string
		select {
		case line = <-clock:
		case o := <-done:
			return 0, 0, ended(o)
		case <-time.After(clockSampleTimeout):
			return 0, 0, fmt.Errorf("no clock reading within %s", clockSampleTimeout)
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		after := time.Now()
		remote, err := parseDate(line)
		if err != nil {
			return 0, 0, err
		}
		rtt := after.Sub(before) // monotonic
		if best < 0 || rtt < best {
			best = rtt
			skew = remote.Sub(before.Add(rtt / 2).Round(0)) // wall clocks
		}
	}
	_ = pw.Close()
	select {
	case o := <-done:
		if o.err != nil {
			return 0, 0, o.err
		}
	case <-time.After(clockSampleTimeout):
		return 0, 0, fmt.Errorf("clock command did not end after its stdin closed")
	}
	return skew, best / 2, nil
}

// parseDate reads `date +%s.%N` output.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	sec, frac, ok := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(sec, 10, 64)
	if !ok || err != nil || len(frac) == 0 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("`date +%%s.%%N` printed %q (GNU date is needed)", s)
	}
	ns, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	return time.Unix(secs, ns), nil
}

// signed formats a duration with its sign, rounded to the microsecond.
func signed(d time.Duration) string {
	d = d.Round(time.Microsecond)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}
