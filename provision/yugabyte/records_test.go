package yugabyte

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

const procLimitsSample = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max data size             unlimited            unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max core file size        0                    unlimited            bytes     
Max resident set          unlimited            unlimited            bytes     
Max processes             12000                12000                processes 
Max open files            1048576              1048576              files     
Max locked memory         65536                65536                bytes     
Max address space         unlimited            unlimited            bytes     
Max file locks            unlimited            unlimited            locks     
Max pending signals       119934               119934               signals   
Max msgqueue size         819200               819200               bytes     
Max nice priority         0                    0                    
Max realtime priority     0                    0                    
Max realtime timeout      unlimited            unlimited            us        `

func TestSummarizeLimits(t *testing.T) {
	sum, off := summarizeLimits(strings.Split(procLimitsSample, "\n"))
	want := "core=0/unlimited data=unlimited/unlimited fsize=unlimited/unlimited sigpending=119934/119934 memlock=65536/65536 rss=unlimited/unlimited nofile=1048576/1048576 msgqueue=819200/819200 stack=8388608/unlimited cpu=unlimited/unlimited nproc=12000/12000 locks=unlimited/unlimited as=unlimited/unlimited"
	if sum != want {
		t.Errorf("summary\n got %s\nwant %s", sum, want)
	}
	if len(off) != 1 || off[0] != "core=0 (spec: unlimited)" {
		t.Errorf("off spec = %q", off)
	}
}

// TestULimitUnits ties the start script's ulimit values (bash units) to the
// values /proc shows (bytes for memlock and stack), item by item.
func TestULimitUnits(t *testing.T) {
	proc := map[string]string{}
	for _, p := range procLimits {
		proc[p.item] = p.want
	}
	kib := map[string]bool{"memlock": true, "stack": true}
	if len(ulimits) != len(procLimits) {
		t.Fatalf("%d ulimits, %d /proc rows", len(ulimits), len(procLimits))
	}
	for _, u := range ulimits {
		want := u.Value
		if kib[u.Item] {
			n, err := strconv.Atoi(u.Value)
			if err != nil {
				t.Fatalf("%s: %v", u.Item, err)
			}
			want = strconv.Itoa(n * 1024)
		}
		if proc[u.Item] != want {
			t.Errorf("%s: ulimit %s %s shows in /proc as %s, the check expects %s", u.Item, u.Option, u.Value, want, proc[u.Item])
		}
	}
}

func TestParseChrony(t *testing.T) {
	lines := strings.Split(`Reference ID    : A9FEA97B (169.254.169.123)
Stratum         : 4
Ref time (UTC)  : Mon Nov 30 07:00:00 2026
System time     : 0.000010000 seconds slow of NTP time
Last offset     : -0.000001000 seconds
RMS offset      : 0.000012000 seconds
Frequency       : 1.234 ppm slow
Residual freq   : +0.000 ppm
Skew            : 0.012 ppm
Root delay      : 0.000200000 seconds
Root dispersion : 0.000300000 seconds
Update interval : 16.0 seconds
Leap status     : Normal`, "\n")
	c := parseChrony(lines)
	if c.Leap != "Normal" || c.Stratum != "4" || c.Interval != "16.0 seconds" {
		t.Errorf("parsed %+v", c)
	}
	if want := 0.00001 + 0.0003 + 0.0001; math.Abs(c.ErrorBound-want) > 1e-12 {
		t.Errorf("error bound %g, want %g", c.ErrorBound, want)
	}
	if !strings.Contains(c.String(), "clock error bound 0.000410 s") {
		t.Errorf("String() = %s", c)
	}
	if s := parseChrony(nil).String(); !strings.Contains(s, "bound unknown") {
		t.Errorf("empty: %s", s)
	}
}
