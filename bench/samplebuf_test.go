package bench

import "testing"

// Samples come back in the order pushed, across blocks, after a clear as
// before it; a buffer refilled to its earlier size allocates nothing.
func TestSampleBufKeepsOrderAndBlocks(t *testing.T) {
	var b sampleBuf
	collect := func() []uint32 {
		var got []uint32
		for _, blk := range b.filled() {
			for _, s := range blk {
				got = append(got, s.svc)
			}
		}
		return got
	}
	for _, n := range []int{0, 1, sampleBlock - 1, sampleBlock, sampleBlock + 1, 3*sampleBlock + 7, 5} {
		for i := range n {
			b.push(sample{svc: uint32(i)})
		}
		got := collect()
		if len(got) != n {
			t.Fatalf("pushed %d, read %d", n, len(got))
		}
		for i, v := range got {
			if v != uint32(i) {
				t.Fatalf("pushed %d: sample %d reads %d", n, i, v)
			}
		}
		b.clear()
		if got := collect(); len(got) != 0 {
			t.Fatalf("cleared, still %d samples", len(got))
		}
	}
	if len(b.blocks) != 4 {
		t.Errorf("%d blocks kept after at most 3·%d+7 samples, want 4", len(b.blocks), sampleBlock)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for range 3*sampleBlock + 7 {
			b.push(sample{})
		}
		b.clear()
	})
	if allocs != 0 {
		t.Errorf("refilling kept blocks allocated %.1f times, want 0", allocs)
	}
}
