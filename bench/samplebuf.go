package bench

// sampleBlock is how many samples a block of a sampleBuf holds (16 KB).
const sampleBlock = 1024

// sampleBuf holds one recorder's samples between two drains, in blocks of
// sampleBlock. A worker that measures more than before gets another
// block; nothing already written is copied, as growing one slice would
// copy it (into freshly faulted memory, which a run's first seconds
// measured at 5% of the null binding's CPU). Blocks are kept across
// drains, so a steady run allocates nothing; but not forever: see clear.
type sampleBuf struct {
	blocks [][]sample // blocks[:cur+1] hold the samples in order; the rest wait for reuse
	cur    int
	ends   []int64 // clock ns of each sample's end; only when raw output is on
	// keep is how many blocks clear keeps: twice the latest fill, or
	// what it was a clear before, less a sixteenth (at least one).
	keep int
}

// push appends s.
func (b *sampleBuf) push(s sample) {
	if b.cur < len(b.blocks) {
		if blk := b.blocks[b.cur]; len(blk) < cap(blk) {
			b.blocks[b.cur] = append(blk, s)
			return
		}
		b.cur++
	}
	if b.cur == len(b.blocks) {
		b.blocks = append(b.blocks, make([]sample, 0, sampleBlock))
	}
	b.blocks[b.cur] = append(b.blocks[b.cur], s)
}

// filled returns the blocks that hold samples, in the order they were
// pushed (the last may be partly filled, or empty).
func (b *sampleBuf) filled() [][]sample {
	return b.blocks[:min(b.cur+1, len(b.blocks))]
}

// clear empties the buffer and lets go of the blocks beyond keep. A drain
// that comes late (the ticker held up on a busy machine) finds many more
// samples than the next ones will; kept, the blocks it took would hold
// the run's worst backlog to its end (a null-binding run at full speed
// grew from 31 to 130 MiB over 3 hours of ticks, 20 MB of it blocks the
// next drains left empty). keep comes down a sixteenth a clear, so that
// fills that vary from drain to drain do not allocate each time.
func (b *sampleBuf) clear() {
	used := len(b.filled())
	for i := range used {
		b.blocks[i] = b.blocks[i][:0]
	}
	b.keep = max(2*used, b.keep-max(b.keep/16, 1), 1)
	if len(b.blocks) > b.keep {
		clear(b.blocks[b.keep:]) // the backing array must not hold them either
		b.blocks = b.blocks[:b.keep]
	}
	b.cur = 0
	if cap(b.ends) > max(2*len(b.ends), sampleBlock) {
		b.ends = nil
	}
	b.ends = b.ends[:0]
}
