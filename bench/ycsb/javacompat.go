package ycsb

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// JavaStringHash is java.lang.String.hashCode for ASCII/Latin-1 text:
// h = 31·h + c with int32 wrap-around.
func JavaStringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

// javaMapOrder returns the indices of names in the order a Java hash map
// with default capacity iterates them, given they were inserted in the order
// given: by bin (spread hash & (table-1)), then insertion order.
// concurrent selects ConcurrentHashMap's resize rule (resize when the count
// reaches 0.75·n) instead of HashMap's (when it exceeds it).
func javaMapOrder(names []string, concurrent bool) []int {
	n := 16
	for {
		limit := 3 * n / 4
		if (concurrent && len(names) < limit) || (!concurrent && len(names) <= limit) {
			break
		}
		n *= 2
	}
	bin := func(s string) int {
		h := uint32(JavaStringHash(s))
		h ^= h >> 16
		if concurrent {
			h &= 0x7fffffff
		}
		return int(h) & (n - 1)
	}
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bin(names[idx[a]]) < bin(names[idx[b]]) })
	return idx
}

// JavaDouble formats a float64 as Java's Double.toString: shortest digits,
// plain notation with at least one decimal for 10^-3 <= |x| < 10^7, else
// computerized scientific notation (1.23456789E7, 5.0E-4).
func JavaDouble(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(x); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'E', -1, 64) // e.g. 1.23456789E+07, 5E-04
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// JavaDecimal2 formats as java.text.DecimalFormat("#.##"): at most two
// decimals, rounded half-even on the exact binary value, no trailing zeros,
// "NaN" for NaN (OpenJDK 17), "∞" for infinities.
func JavaDecimal2(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "-∞"
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return s
}

// javaD2L is Java's (long) cast of a double: NaN → 0, saturating at the
// int64 range.
func javaD2L(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// JavaIntOfDouble is Java's (int) of a double, as Double.intValue() and a
// cast do it: truncation toward zero, NaN to 0, and values past int's range
// saturated at its ends (Go leaves an out-of-range conversion undefined).
func JavaIntOfDouble(x float64) int32 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}
