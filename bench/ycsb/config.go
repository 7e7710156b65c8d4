package ycsb

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Config is CoreWorkload's configuration, read from properties with YCSB's
// names and defaults (spec ycsb.md §3.1).
type Config struct {
	Table                string
	FieldCount           int64
	FieldNamePrefix      string
	FieldLength          int64
	MinFieldLength       int64
	FieldLengthDist      string
	FieldLengthHistogram string
	// FieldLengths is the fieldlengthhistogram file, read: the caller that
	// has the file system fills it in before NewCore.
	FieldLengths        *HistogramGen
	ReadAllFields       bool
	ReadAllFieldsByName bool
	WriteAllFields      bool
	DataIntegrity       bool
	ReadProportion      float64
	UpdateProportion    float64
	InsertProportion    float64
	ScanProportion      float64
	RMWProportion       float64
	RequestDistribution string
	MinScanLength       int64
	MaxScanLength       int64
	ScanLengthDist      string
	OrderedInserts      bool
	RecordCount         int64
	InsertStart         int64
	InsertCount         int64
	// LoadCount is how many records the load phase inserts: insertcount
	// when it is given, else recordcount — YCSB's Client counts so even
	// with insertstart > 0, loading keys insertstart … insertstart +
	// recordcount − 1.
	LoadCount             int64
	OperationCount        int64
	ZeroPadding           int64
	HotspotDataFraction   float64
	HotspotOpnFraction    float64
	ExponentialPercentile float64
	ExponentialFrac       float64
	InsertRetryLimit      int64
	InsertRetryInterval   int64
	KeyPrefix             string

	// AgentIndex and AgentCount split run-phase insert keys between several
	// agents (an extension; 0 and 1 give YCSB's behaviour).
	AgentIndex, AgentCount int64

	// Warnings are messages YCSB would print while reading the configuration.
	Warnings []string
}

// ErrBadConfig wraps every configuration error (exit code 2).
var ErrBadConfig = errors.New("bad configuration")

// MaxFieldCount bounds fieldcount: PostgreSQL and YSQL take at most 1600
// columns, and a record is built per operation.
const MaxFieldCount = 1600

// ReadConfig reads CoreWorkload's properties, reporting every problem at once.
// Values that do not parse are reported alone: the checks of their
// combinations would only repeat them.
func ReadConfig(p *Props) (*Config, error) {
	r := &propReader{p: p}
	c := readCoreProps(r)
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, errors.Join(r.errs...))
	}
	c.checkRecordCount(r)
	c.checkProportions(r)
	c.readInsertCount(r)
	c.checkInsertRange(r)
	c.checkFields(r)
	c.checkDistributions(r)
	c.checkScansAndKeys(r)
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, errors.Join(r.errs...))
	}
	return c, nil
}

// readCoreProps reads each property with YCSB's name and default, one
// line a property. YCSB core 0.17.0 reads fieldcount, recordcount and
// insertstart as longs (Long.parseLong), insertcount and the others as
// ints, which decides which values are out of range.
func readCoreProps(r *propReader) *Config {
	p := r.p
	return &Config{
		Table:                 p.Get("table", "usertable"),
		FieldCount:            r.long("fieldcount", 10),
		FieldNamePrefix:       p.Get("fieldnameprefix", "field"),
		FieldLength:           r.int("fieldlength", 100),
		MinFieldLength:        r.int("minfieldlength", 1),
		FieldLengthDist:       p.Get("fieldlengthdistribution", "constant"),
		FieldLengthHistogram:  p.Get("fieldlengthhistogram", "hist.txt"),
		ReadAllFields:         p.Bool("readallfields", true),
		ReadAllFieldsByName:   p.Bool("readallfieldsbyname", false),
		WriteAllFields:        p.Bool("writeallfields", false),
		DataIntegrity:         p.Bool("dataintegrity", false),
		ReadProportion:        r.float("readproportion", 0.95),
		UpdateProportion:      r.float("updateproportion", 0.05),
		InsertProportion:      r.float("insertproportion", 0),
		ScanProportion:        r.float("scanproportion", 0),
		RMWProportion:         r.float("readmodifywriteproportion", 0),
		RequestDistribution:   p.Get("requestdistribution", "uniform"),
		MinScanLength:         r.int("minscanlength", 1),
		MaxScanLength:         r.int("maxscanlength", 1000),
		ScanLengthDist:        p.Get("scanlengthdistribution", "uniform"),
		OrderedInserts:        p.Get("insertorder", "hashed") != "hashed",
		RecordCount:           r.long("recordcount", 0),
		InsertStart:           r.long("insertstart", 0),
		OperationCount:        r.int("operationcount", 0),
		ZeroPadding:           r.int("zeropadding", 1),
		HotspotDataFraction:   r.float("hotspotdatafraction", 0.2),
		HotspotOpnFraction:    r.float("hotspotopnfraction", 0.8),
		ExponentialPercentile: r.float("exponential.percentile", 95),
		ExponentialFrac:       r.float("exponential.frac", 0.8571428571),
		InsertRetryLimit:      r.int("core_workload_insertion_retry_limit", 0),
		InsertRetryInterval:   r.int("core_workload_insertion_retry_interval", 3),
		KeyPrefix:             p.Get("keyprefix", "user"),
		AgentIndex:            r.long("ybload.agent.index", 0),
		AgentCount:            r.long("ybload.agent.count", 1),
	}
}

// checkRecordCount refuses a record count or first key YCSB accepts and
// then misbehaves on (a named deviation), and gives an absent recordcount
// YCSB's reading of it.
func (c *Config) checkRecordCount(r *propReader) {
	recordCountSet := r.p.Has("recordcount")
	if recordCountSet && c.RecordCount <= 0 {
		r.bad("recordcount", "must be above 0 (YCSB reads 0 as 2147483647 records and can loop forever choosing keys)")
	}
	if c.InsertStart < 0 {
		r.bad("insertstart", "must not be negative (key numbers start at 0)")
	}
	if !recordCountSet {
		c.RecordCount = 2147483647 // YCSB's reading of an absent recordcount
	}
}

// checkProportions refuses negative proportions and a mix with nothing to
// do, and warns of a sum other than 1, which YCSB normalises silently. With
// an error already found the sum is not judged: it would only add noise.
func (c *Config) checkProportions(r *propReader) {
	for _, pr := range []struct {
		key string
		v   float64
	}{{"readproportion", c.ReadProportion}, {"updateproportion", c.UpdateProportion},
		{"insertproportion", c.InsertProportion}, {"scanproportion", c.ScanProportion},
		{"readmodifywriteproportion", c.RMWProportion}} {
		if pr.v < 0 {
			r.bad(pr.key, "a proportion must not be negative")
		}
	}
	sum := c.ReadProportion + c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.RMWProportion
	earlier := len(r.errs) > 0
	if sum == 0 && !earlier {
		r.add(fmt.Errorf("%s: every operation proportion is 0: nothing to do", r.p.SourceOf("readproportion")))
	} else if d := sum - 1; !earlier && (d > 1e-9 || d < -1e-9) {
		c.Warnings = append(c.Warnings, fmt.Sprintf("operation proportions sum to %g, not 1: they are normalised, as YCSB does", sum))
	}
}

// readInsertCount reads insertcount, or derives it as YCSB does, and the
// load phase's count (see LoadCount).
func (c *Config) readInsertCount(r *propReader) {
	if r.p.Has("insertcount") {
		c.InsertCount = r.int("insertcount", 0)
		if c.InsertCount < 1 {
			r.bad("insertcount", "must be at least 1")
		}
		c.LoadCount = c.InsertCount
		return
	}
	c.InsertCount = c.RecordCount - c.InsertStart
	c.LoadCount = c.RecordCount
	if c.InsertCount > math.MaxInt32 {
		// YCSB parses insertcount's default, recordcount − insertstart,
		// as an int and stops with a NumberFormatException.
		r.bad("recordcount", fmt.Sprintf("recordcount − insertstart = %d is past a 32-bit int, which YCSB's insertcount (an int, defaulting to it) cannot hold: set insertcount", c.InsertCount))
	}
}

// checkInsertRange checks that the keys to insert lie within recordcount,
// as YCSB's CoreWorkload does.
func (c *Config) checkInsertRange(r *propReader) {
	p := r.p
	if c.InsertCount < 1 && !p.Has("insertcount") && c.InsertStart > 0 {
		r.bad("insertstart", "must be below recordcount (no key left to insert)")
	} else if c.RecordCount < c.InsertStart+c.InsertCount {
		r.add(fmt.Errorf("%s: invalid combination of insertstart, insertcount and recordcount: recordcount must be bigger than insertstart + insertcount", p.SourceOf("insertcount")))
	}
}

// checkFields checks the number and lengths of the fields.
func (c *Config) checkFields(r *propReader) {
	if c.FieldCount < 1 || c.FieldCount > MaxFieldCount {
		r.bad("fieldcount", fmt.Sprintf("must be 1 to %d", MaxFieldCount))
	}
	if c.FieldLength < 0 || c.MinFieldLength < 0 {
		r.bad("fieldlength", "field lengths must not be negative")
	} else if c.FieldLengthDist == "uniform" && c.MinFieldLength > c.FieldLength {
		r.bad("minfieldlength", "must not be above fieldlength")
	}
}

// checkDistributions checks the distributions' names and the parameters of
// the one chosen (a hotspot's or an exponential's parameters matter only
// when it is the request distribution).
func (c *Config) checkDistributions(r *propReader) {
	if c.HotspotDataFraction <= 0 || c.HotspotDataFraction >= 1 {
		if c.RequestDistribution == "hotspot" {
			r.bad("hotspotdatafraction", "want a fraction strictly between 0 and 1 (the hot and the cold set must both hold keys)")
		}
	}
	if c.RequestDistribution == "hotspot" && (c.HotspotOpnFraction < 0 || c.HotspotOpnFraction > 1) {
		r.bad("hotspotopnfraction", "want a fraction between 0 and 1")
	}
	if c.RequestDistribution == "exponential" {
		if c.ExponentialPercentile <= 0 || c.ExponentialPercentile >= 100 {
			r.bad("exponential.percentile", "want a percentile strictly between 0 and 100")
		}
		if c.ExponentialFrac <= 0 || c.ExponentialFrac > 1 {
			r.bad("exponential.frac", "want a fraction above 0, at most 1")
		}
	}
	switch c.FieldLengthDist {
	case "constant", "uniform", "zipfian", "histogram":
	default:
		r.bad("fieldlengthdistribution", "unknown distribution (want constant, uniform, zipfian or histogram)")
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		r.bad("fieldlengthdistribution", "dataintegrity requires constant field lengths, as YCSB does")
	}
	switch c.RequestDistribution {
	case "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential":
	default:
		r.bad("requestdistribution", "unknown distribution (want uniform, zipfian, latest, hotspot, sequential or exponential)")
	}
	switch c.ScanLengthDist {
	case "uniform", "zipfian":
	default:
		r.bad("scanlengthdistribution", "unknown distribution (want uniform or zipfian)")
	}
}

// checkScansAndKeys checks the scan lengths, the key format, the split
// between agents and the workload class.
func (c *Config) checkScansAndKeys(r *propReader) {
	if c.MinScanLength < 0 {
		r.bad("minscanlength", "must not be negative")
	} else if c.MaxScanLength < c.MinScanLength {
		r.bad("maxscanlength", "need minscanlength <= maxscanlength")
	}
	if c.ZeroPadding < 0 || c.ZeroPadding > 64 {
		r.bad("zeropadding", "must be between 0 and 64")
	}
	if c.AgentCount < 1 || c.AgentIndex < 0 || c.AgentIndex >= c.AgentCount {
		r.bad("ybload.agent.index", "need 0 <= ybload.agent.index < ybload.agent.count")
	}
	if w := r.p.Get("workload", ""); w != "" && w != "site.ycsb.workloads.CoreWorkload" && w != "core" {
		r.bad("workload", "unknown workload class (ybload has site.ycsb.workloads.CoreWorkload, also named core)")
	}
}

// FieldNames are the field names, prefix + 0..fieldcount-1.
func (c *Config) FieldNames() []string {
	names := make([]string, c.FieldCount)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", c.FieldNamePrefix, i)
	}
	return names
}

// Describe is a one-line summary for logs.
func (c *Config) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recordcount=%d operationcount=%d distribution=%s", c.RecordCount, c.OperationCount, c.RequestDistribution)
	return b.String()
}
