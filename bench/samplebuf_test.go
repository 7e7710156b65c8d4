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

// A drain that came late took many blocks; once the drains are back to
// their size, the buffer comes back to twice what they fill, not keeping
// the backlog's blocks, and nothing of the backing array still points to
// those. Fills that vary from drain to drain allocate nothing.
func TestSampleBufLetsALateDrainsBlocksGo(t *testing.T) {
	var b sampleBuf
	fill := func(n int) {
		for range n {
			b.push(sample{})
		}
		b.clear()
	}
	fill(2 * sampleBlock) // steady: two blocks a drain
	fill(100 * sampleBlock)
	if len(b.blocks) != 100 {
		t.Fatalf("%d blocks kept after the late drain itself, want its 100", len(b.blocks))
	}
	for range 100 { // this buffer is cleared every other drain: 20 s at 1 s ticks
		fill(2 * sampleBlock)
	}
	if len(b.blocks) != 4 {
		t.Errorf("%d blocks kept 100 drains after the late one, the drains back to two blocks; want 4", len(b.blocks))
	}
	for i, blk := range b.blocks[len(b.blocks):cap(b.blocks)] {
		if blk != nil {
			t.Fatalf("block %d let go is still referenced by the backing array", len(b.blocks)+i)
		}
	}
	n := 0
	if allocs := testing.AllocsPerRun(100, func() { n++; fill((2 + n%2) * sampleBlock) }); allocs != 0 {
		t.Errorf("fills of two and three blocks in turn allocated %.1f times a fill, want 0", allocs)
	}
	// Raw output's end times are let go alike.
	b.ends = make([]int64, 0, 100*sampleBlock)
	b.ends = append(b.ends, 1, 2, 3)
	b.clear()
	if cap(b.ends) > sampleBlock {
		t.Errorf("the end times' capacity %d kept after 3 of them, want at most %d", cap(b.ends), sampleBlock)
	}
}
