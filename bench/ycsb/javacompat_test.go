package ycsb

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Java HashMap iteration order of field0..field9, checked by the spec on a JVM.
func TestFieldOrderIsJavaHashMapOrder(t *testing.T) {
	names := (&Config{FieldCount: 10, FieldNamePrefix: "field"}).FieldNames()
	var got []string
	for _, i := range javaMapOrder(names, false) {
		got = append(got, names[i])
	}
	want := "field1 field0 field7 field6 field9 field8 field3 field2 field5 field4"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// ConcurrentHashMap bins of the measurement names (spec ycsb.md §6.8).
func TestMeasurementBinsMatchJava(t *testing.T) {
	bins := map[string]int{"READ": 0, "UPDATE-FAILED": 0, "SCAN-FAILED": 1, "DELETE": 2, "READ-MODIFY-WRITE": 3,
		"CLEANUP": 8, "INSERT": 10, "UPDATE": 10, "READ-FAILED": 10, "VERIFY": 10, "SCAN": 11, "INSERT-FAILED": 15}
	for name, want := range bins {
		h := uint32(JavaStringHash(name))
		h ^= h >> 16
		if got := int(h&0x7fffffff) & 15; got != want {
			t.Errorf("%s in bin %d, want %d", name, got, want)
		}
	}
	got := javaMapOrder([]string{"READ", "UPDATE", "CLEANUP"}, true)
	if got[0] != 0 || got[1] != 2 || got[2] != 1 {
		t.Errorf("order %v, want READ, CLEANUP, UPDATE", got)
	}
}

func TestJavaDoubleToString(t *testing.T) {
	cases := map[float64]string{
		3739.0: "3739.0", 548.3923451: "548.3923451", 12345678.9: "1.23456789E7", 0.0005: "5.0E-4",
		0.001: "0.001", 1e7: "1.0E7", 0: "0.0", 37443.123: "37443.123", math.NaN(): "NaN", 100: "100.0",
	}
	for x, want := range cases {
		if got := JavaDouble(x); got != want {
			t.Errorf("JavaDouble(%v) = %s, want %s", x, got, want)
		}
	}
}

func TestJavaDecimalFormat(t *testing.T) {
	cases := map[float64]string{548.394: "548.39", 548.395: "548.39" /* 548.39499999… in binary */, 548.396: "548.4", 0.125: "0.12", 0.375: "0.38", 7: "7", 37634.7412: "37634.74", math.NaN(): "NaN", 0.001: "0"}
	for x, want := range cases {
		if got := JavaDecimal2(x); got != want {
			t.Errorf("JavaDecimal2(%v) = %s, want %s", x, got, want)
		}
	}
}

func TestRemainingFormatterQuirks(t *testing.T) {
	cases := map[int64]string{
		0: "0 second ", 7: "7 second ", 45: "45 seconds ", 120: "2 minutes ", 61: "1 minute ",
		3600: "1 hour ", 7260: "2 hours 1 minute ", 86400 + 3600: "1 day 1 hour ", 3 * 86400: "3 days ",
	}
	for s, want := range cases {
		if got := remaining(s); got != want {
			t.Errorf("remaining(%d) = %q, want %q", s, got, want)
		}
	}
	// The status line before any operation: 0/0 is NaN, which Java casts to 0.
	if got := remaining(javaD2L(math.Ceil(100 / math.NaN()))); got != "0 second " {
		t.Errorf("NaN case %q", got)
	}
}

func TestOrdinals(t *testing.T) {
	cases := map[float64]string{95: "95th", 99: "99th", 50: "50th", 1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 99.9: "99.9"}
	for p, want := range cases {
		if got := ordinal(p); got != want {
			t.Errorf("ordinal(%v) = %s, want %s", p, got, want)
		}
	}
}

func TestDeterministicValueVector(t *testing.T) {
	got := deterministicValue("user6284781860667377211", "field0", 100)
	want := "user6284781860667377211:field0:-56807877:2032869390:-165488160:1762371712:-169193395:-1039977118:-10"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRandomValuesUseYCSBAlphabet(t *testing.T) {
	r := seeded()
	var seen [256]bool
	for i := 0; i < 2000; i++ {
		n := i % 37
		b := RandomValue(n, r).AppendTo(nil)
		if len(b) != n {
			t.Fatalf("length %d, want %d", len(b), n)
		}
		for _, c := range b {
			if c < 32 || c > 127 {
				t.Fatalf("byte %d outside ASCII 32..127", c)
			}
			seen[c] = true
		}
	}
	// b2 and b5 use &95, which can give DEL (127) and never 64..95+32 gaps on their own;
	// over many values every code 32..127 appears.
	for c := 32; c <= 127; c++ {
		if !seen[c] {
			t.Errorf("byte %d never produced", c)
		}
	}
}

// The byte layout of RandomByteIterator, written out group by group as
// YCSB's Java does (six bytes per 32-bit draw, the 64-bit draw split in
// two), for every length up to 300: AppendTo's faster stores must give
// the same bytes from the same draws.
func TestRandomValueLayout(t *testing.T) {
	ref := func(n int, r *rand.Rand) []byte {
		var out []byte
		var word uint64
		for g := 0; len(out) < n; g++ {
			if g%2 == 0 {
				word = r.Uint64()
			} else {
				word >>= 32
			}
			x := uint32(word)
			for _, c := range []uint32{x & 31, (x >> 5) & 63, (x >> 10) & 95, (x >> 15) & 31, (x >> 20) & 63, (x >> 25) & 95} {
				if len(out) < n {
					out = append(out, ' '+byte(c))
				}
			}
		}
		return out
	}
	for n := 0; n <= 300; n++ {
		a, b := rand.New(rand.NewPCG(uint64(n), 7)), rand.New(rand.NewPCG(uint64(n), 7))
		if got, want := RandomValue(n, a).AppendTo([]byte("x")), append([]byte("x"), ref(n, b)...); !bytes.Equal(got, want) {
			t.Fatalf("length %d:\ngot  %q\nwant %q", n, got, want)
		}
	}
}

// More deterministic values, each checked against the definition: the
// running hash must equal the Java hash of the whole prefix at each step.
func TestDeterministicValueMatchesDefinition(t *testing.T) {
	def := func(key, field string, size int) string {
		s := key + ":" + field
		for len(s) < size {
			s += ":"
			s += strconv.Itoa(int(JavaStringHash(s)))
		}
		return s[:min(len(s), size)]
	}
	for _, size := range []int{0, 1, 10, 31, 100, 257} {
		for _, key := range []string{"user1", "user6284781860667377211"} {
			if got, want := deterministicValue(key, "field3", size), def(key, "field3", size); got != want {
				t.Errorf("%s/%d: got %q, want %q", key, size, got, want)
			}
		}
	}
}
