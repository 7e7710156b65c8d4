package ycql

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The vectors were produced by running the reference Java driver's own
// partition-hash function (testdata/hashgen, version in the file's header).
func TestPartitionHashMatchesReferenceVectors(t *testing.T) {
	f, err := os.Open("testdata/partition_hash_vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	header := ""
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			header += l + "\n"
			continue
		}
		parts := strings.Split(l, "\t")
		if len(parts) != 3 {
			t.Fatalf("line %d: %q: want 3 tab-separated columns", line, l)
		}
		var key []byte
		if parts[0] != "-" {
			if key, err = hex.DecodeString(parts[0]); err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
		}
		want64, err := strconv.ParseUint(parts[1], 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		want16, err := strconv.ParseUint(parts[2], 10, 16)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if got := Jenkins64(key, partitionHashSeed); got != want64 {
			t.Errorf("line %d: Jenkins64(%s) = %016x, reference %016x", line, parts[0], got, want64)
		}
		if got := PartitionHash(key); uint64(got) != want16 {
			t.Errorf("line %d: PartitionHash(%s) = %d, reference %d", line, parts[0], got, want16)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 150 || !strings.Contains(header, "cassandra-driver-core-3.10.3-yb-2.jar") {
		t.Fatalf("%d vectors; header:\n%s\nwant ≥ 150 vectors from the pinned driver", n, header)
	}
}

func TestEncodeRoutingKey(t *testing.T) {
	composite := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
			b = append(append(b, p...), 0)
		}
		return b
	}
	ts := binary.BigEndian.AppendUint64(nil, 1_700_000_000_123)
	nan32 := binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(math.NaN()))|1)
	nan64 := binary.BigEndian.AppendUint64(nil, math.Float64bits(math.NaN())|7)
	cases := []struct {
		name  string
		rk    []byte
		types []KeyType
		want  []byte
		err   bool
	}{
		{"one column, no types", []byte("key:7"), nil, []byte("key:7"), false},
		{"one text column", []byte("key:7"), []KeyType{KeyRaw}, []byte("key:7"), false},
		{"composite of two", composite([]byte("ab"), []byte{0, 0, 0, 7}), []KeyType{KeyRaw, KeyRaw}, []byte{'a', 'b', 0, 0, 0, 7}, false},
		{"timestamp in microseconds", ts, []KeyType{KeyTimestamp}, binary.BigEndian.AppendUint64(nil, 1_700_000_000_123_000), false},
		{"float NaN canonical", nan32, []KeyType{KeyFloat}, []byte{0x7f, 0xc0, 0, 0}, false},
		{"double NaN canonical", nan64, []KeyType{KeyDouble}, []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 0}, false},
		{"double not NaN raw", []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, []KeyType{KeyDouble}, []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, false},
		{"collection refused", []byte{1}, []KeyType{KeyUnsupported}, nil, true},
		{"truncated composite", []byte{0, 9, 'a'}, []KeyType{KeyRaw, KeyRaw}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := EncodeRoutingKey(nil, c.rk, c.types)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if !c.err && string(got) != string(c.want) {
				t.Errorf("got %x, want %x", got, c.want)
			}
		})
	}
}
