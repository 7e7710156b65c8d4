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

// ReadConfig reads CoreWorkload's properties, reporting every problem at once.
func ReadConfig(p *Props) (*Config, error) {
	c := &Config{}
	var errs []error
	i := func(dst *int64, key string, def int64) {
		v, err := p.Int(key, def)
		if err != nil {
			errs = append(errs, err)
		}
		*dst = v
	}
	l := func(dst *int64, key string, def int64) {
		v, err := p.Long(key, def)
		if err != nil {
			errs = append(errs, err)
		}
		*dst = v
	}
	f := func(dst *float64, key string, def float64) {
		v, err := p.Float(key, def)
		if err != nil {
			errs = append(errs, err)
		}
		*dst = v
	}
	c.Table = p.Get("table", "usertable")
	// YCSB core 0.17.0 reads fieldcount, recordcount and insertstart as
	// longs (Long.parseLong), insertcount and the others as ints.
	l(&c.FieldCount, "fieldcount", 10)
	c.FieldNamePrefix = p.Get("fieldnameprefix", "field")
	i(&c.FieldLength, "fieldlength", 100)
	i(&c.MinFieldLength, "minfieldlength", 1)
	c.FieldLengthDist = p.Get("fieldlengthdistribution", "constant")
	c.FieldLengthHistogram = p.Get("fieldlengthhistogram", "hist.txt")
	c.ReadAllFields = p.Bool("readallfields", true)
	c.ReadAllFieldsByName = p.Bool("readallfieldsbyname", false)
	c.WriteAllFields = p.Bool("writeallfields", false)
	c.DataIntegrity = p.Bool("dataintegrity", false)
	f(&c.ReadProportion, "readproportion", 0.95)
	f(&c.UpdateProportion, "updateproportion", 0.05)
	f(&c.InsertProportion, "insertproportion", 0)
	f(&c.ScanProportion, "scanproportion", 0)
	f(&c.RMWProportion, "readmodifywriteproportion", 0)
	c.RequestDistribution = p.Get("requestdistribution", "uniform")
	i(&c.MinScanLength, "minscanlength", 1)
	i(&c.MaxScanLength, "maxscanlength", 1000)
	c.ScanLengthDist = p.Get("scanlengthdistribution", "uniform")
	c.OrderedInserts = p.Get("insertorder", "hashed") != "hashed"
	l(&c.RecordCount, "recordcount", 0)
	recordCountSet := p.Has("recordcount")
	l(&c.InsertStart, "insertstart", 0)
	i(&c.OperationCount, "operationcount", 0)
	i(&c.ZeroPadding, "zeropadding", 1)
	f(&c.HotspotDataFraction, "hotspotdatafraction", 0.2)
	f(&c.HotspotOpnFraction, "hotspotopnfraction", 0.8)
	f(&c.ExponentialPercentile, "exponential.percentile", 95)
	f(&c.ExponentialFrac, "exponential.frac", 0.8571428571)
	i(&c.InsertRetryLimit, "core_workload_insertion_retry_limit", 0)
	i(&c.InsertRetryInterval, "core_workload_insertion_retry_interval", 3)
	c.KeyPrefix = p.Get("keyprefix", "user")
	l(&c.AgentIndex, "ybload.agent.index", 0)
	l(&c.AgentCount, "ybload.agent.count", 1)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, errors.Join(errs...))
	}

	// Named deviations: inputs YCSB accepts and then misbehaves on.
	if recordCountSet && c.RecordCount <= 0 {
		errs = append(errs, p.bad("recordcount", "must be above 0 (YCSB reads 0 as 2147483647 records and can loop forever choosing keys)"))
	}
	if c.InsertStart < 0 {
		errs = append(errs, p.bad("insertstart", "must not be negative (key numbers start at 0)"))
	}
	if !recordCountSet {
		c.RecordCount = 2147483647 // YCSB's reading of an absent recordcount
	}
	for _, pr := range []struct {
		key string
		v   float64
	}{{"readproportion", c.ReadProportion}, {"updateproportion", c.UpdateProportion},
		{"insertproportion", c.InsertProportion}, {"scanproportion", c.ScanProportion},
		{"readmodifywriteproportion", c.RMWProportion}} {
		if pr.v < 0 {
			errs = append(errs, p.bad(pr.key, "a proportion must not be negative"))
		}
	}
	sum := c.ReadProportion + c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.RMWProportion
	negative := len(errs) > 0
	if sum == 0 && !negative {
		errs = append(errs, fmt.Errorf("%s: every operation proportion is 0: nothing to do", p.SourceOf("readproportion")))
	} else if d := sum - 1; !negative && (d > 1e-9 || d < -1e-9) {
		c.Warnings = append(c.Warnings, fmt.Sprintf("operation proportions sum to %g, not 1: they are normalised, as YCSB does", sum))
	}
	if p.Has("insertcount") {
		i(&c.InsertCount, "insertcount", 0)
		if c.InsertCount < 1 {
			errs = append(errs, p.bad("insertcount", "must be at least 1"))
		}
		c.LoadCount = c.InsertCount
	} else {
		c.InsertCount = c.RecordCount - c.InsertStart
		c.LoadCount = c.RecordCount
		if c.InsertCount > math.MaxInt32 {
			// YCSB parses insertcount's default, recordcount − insertstart,
			// as an int and stops with a NumberFormatException.
			errs = append(errs, p.bad("recordcount", fmt.Sprintf("recordcount − insertstart = %d is past a 32-bit int, which YCSB's insertcount (an int, defaulting to it) cannot hold: set insertcount", c.InsertCount)))
		}
	}
	if c.InsertCount < 1 && !p.Has("insertcount") && c.InsertStart > 0 {
		errs = append(errs, p.bad("insertstart", "must be below recordcount (no key left to insert)"))
	} else if c.RecordCount < c.InsertStart+c.InsertCount {
		errs = append(errs, fmt.Errorf("%s: invalid combination of insertstart, insertcount and recordcount: recordcount must be bigger than insertstart + insertcount", p.SourceOf("insertcount")))
	}
	if c.FieldCount < 1 || c.FieldCount > MaxFieldCount {
		errs = append(errs, p.bad("fieldcount", fmt.Sprintf("must be 1 to %d", MaxFieldCount)))
	}
	if c.FieldLength < 0 || c.MinFieldLength < 0 {
		errs = append(errs, p.bad("fieldlength", "field lengths must not be negative"))
	} else if c.FieldLengthDist == "uniform" && c.MinFieldLength > c.FieldLength {
		errs = append(errs, p.bad("minfieldlength", "must not be above fieldlength"))
	}
	if c.HotspotDataFraction <= 0 || c.HotspotDataFraction >= 1 {
		if c.RequestDistribution == "hotspot" {
			errs = append(errs, p.bad("hotspotdatafraction", "want a fraction strictly between 0 and 1 (the hot and the cold set must both hold keys)"))
		}
	}
	if c.RequestDistribution == "hotspot" && (c.HotspotOpnFraction < 0 || c.HotspotOpnFraction > 1) {
		errs = append(errs, p.bad("hotspotopnfraction", "want a fraction between 0 and 1"))
	}
	if c.RequestDistribution == "exponential" {
		if c.ExponentialPercentile <= 0 || c.ExponentialPercentile >= 100 {
			errs = append(errs, p.bad("exponential.percentile", "want a percentile strictly between 0 and 100"))
		}
		if c.ExponentialFrac <= 0 || c.ExponentialFrac > 1 {
			errs = append(errs, p.bad("exponential.frac", "want a fraction above 0, at most 1"))
		}
	}
	switch c.FieldLengthDist {
	case "constant", "uniform", "zipfian", "histogram":
	default:
		errs = append(errs, p.bad("fieldlengthdistribution", "unknown distribution (want constant, uniform, zipfian or histogram)"))
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		errs = append(errs, p.bad("fieldlengthdistribution", "dataintegrity requires constant field lengths, as YCSB does"))
	}
	switch c.RequestDistribution {
	case "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential":
	default:
		errs = append(errs, p.bad("requestdistribution", "unknown distribution (want uniform, zipfian, latest, hotspot, sequential or exponential)"))
	}
	switch c.ScanLengthDist {
	case "uniform", "zipfian":
	default:
		errs = append(errs, p.bad("scanlengthdistribution", "unknown distribution (want uniform or zipfian)"))
	}
	if c.MinScanLength < 0 {
		errs = append(errs, p.bad("minscanlength", "must not be negative"))
	} else if c.MaxScanLength < c.MinScanLength {
		errs = append(errs, p.bad("maxscanlength", "need minscanlength <= maxscanlength"))
	}
	if c.ZeroPadding < 0 || c.ZeroPadding > 64 {
		errs = append(errs, p.bad("zeropadding", "must be between 0 and 64"))
	}
	if c.AgentCount < 1 || c.AgentIndex < 0 || c.AgentIndex >= c.AgentCount {
		errs = append(errs, p.bad("ybload.agent.index", "need 0 <= ybload.agent.index < ybload.agent.count"))
	}
	if w := p.Get("workload", ""); w != "" && w != "site.ycsb.workloads.CoreWorkload" && w != "core" {
		errs = append(errs, p.bad("workload", "unknown workload class (ybload has site.ycsb.workloads.CoreWorkload, also named core)"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, errors.Join(errs...))
	}
	return c, nil
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
