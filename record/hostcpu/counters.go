package hostcpu

// The counters a reading carries beside its CPU figure, which the
// attribution of a run's limit (collect/bottleneck) reads.

// NodeTicks are the first line of the machine's /proc/stat: clock ticks
// spent in each kind of work, summed over its cores.
type NodeTicks struct {
	User    int64 `json:"user"`
	Nice    int64 `json:"nice"`
	System  int64 `json:"system"`
	Idle    int64 `json:"idle"`
	IOWait  int64 `json:"iowait"`
	IRQ     int64 `json:"irq"`
	SoftIRQ int64 `json:"softirq"`
	Steal   int64 `json:"steal"`
}

// Busy is user+nice+system+irq+softirq: every tick a core did work.
func (n NodeTicks) Busy() int64 { return n.User + n.Nice + n.System + n.IRQ + n.SoftIRQ }

// Total is every tick, idle and waiting ones included.
func (n NodeTicks) Total() int64 { return n.Busy() + n.Idle + n.IOWait + n.Steal }

// Own is the tool's own processes on a host (the database's on a db
// host, the agent's on a client): their CPU ticks (their reaped children's
// included), how many there are, and what bounds the cores they may use.
type Own struct {
	Busy    int64 `json:"busy_ticks"`
	Procs   int64 `json:"procs"`
	Threads int64 `json:"threads"`
	// CPUsAllowed is the first process's affinity (Cpus_allowed_list),
	// CPUQuota its cgroup's CPU quota and period ("max 100000", "10000
	// 100000"; "" when none could be read).
	CPUsAllowed string `json:"cpus_allowed"`
	CPUQuota    string `json:"cpu_quota"`
	// Periods and Throttled are the quota's cgroup cpu.stat nr_periods
	// and nr_throttled: the periods it was enforced in (those with work)
	// and those its processes ran out of it in (0 with no quota).
	Periods   int64 `json:"cpu_periods,omitempty"`
	Throttled int64 `json:"cpu_throttled,omitempty"`
}

// Disk is one block device's /proc/diskstats counters.
type Disk struct {
	Name         string `json:"name"`
	ReadSectors  int64  `json:"read_sectors"`
	WriteSectors int64  `json:"write_sectors"`
	// IOTicks is the milliseconds the device had I/O in flight.
	IOTicks int64 `json:"io_ticks_ms"`
}

// Net is one network interface's /proc/net/dev counters.
type Net struct {
	Name      string `json:"name"`
	RxBytes   int64  `json:"rx_bytes"`
	RxPackets int64  `json:"rx_packets"`
	TxBytes   int64  `json:"tx_bytes"`
	TxPackets int64  `json:"tx_packets"`
}

// Sampler is the reading shell itself: its process id and start time (in
// clock ticks after boot), which tell one session's readings from
// another's, and the CPU ticks it and its reaped children (the `find` of
// each reading) have used so far. Two readings of one session give what
// reading the host cost it, so that the attribution can say how much of
// what it measured it caused.
type Sampler struct {
	PID   int64 `json:"pid"`
	Start int64 `json:"start"`
	Ticks int64 `json:"ticks"`
}
