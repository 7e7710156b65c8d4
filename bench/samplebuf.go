package bench

// sampleBlock is how many samples a block of a sampleBuf holds (16 KB).
const sampleBlock = 1024

// sampleBuf holds one recorder's samples between two drains, in blocks of
// sampleBlock. A worker that measures more than before gets another
// block; nothing already written is copied, as growing one slice would
// copy it (into freshly faulted memory, which a run's first seconds
// measured at 5% of the null binding's CPU). Blocks are kept across
// drains, so a steady run allocates nothing.
type sampleBuf struct {
	blocks [][]sample // blocks[:cur+1] hold the samples in order; the rest wait for reuse
	cur    int
	ends   []int64 // clock ns of each sample's end; only when raw output is on
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

// clear empties the buffer and keeps its blocks.
func (b *sampleBuf) clear() {
	for i := range b.filled() {
		b.blocks[i] = b.blocks[i][:0]
	}
	b.cur = 0
	b.ends = b.ends[:0]
}
