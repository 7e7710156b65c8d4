package kv

import (
	"errors"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/bench/agentutil"
	"github.com/ybbench/ybbench/bench/ycql"
)

// complete fills in what the flags leave to the environment and to each
// other, before the rules between flags are checked: those rules judge the
// password and the writers the run will really have.
func (o *Options) complete(getenv func(string) string) {
	// Password: --password, a 0600 file, or the environment; never needed
	// on the command line.
	if o.Password == "" && getenv != nil {
		o.Password = getenv(ycql.PasswordEnv)
	}
	if o.Agent == "" {
		o.Agent = agentutil.Hostname()
	}
	if !o.SeedSet {
		o.Seed = uint64(time.Now().UnixNano())
	}
	if o.ReadOnly {
		o.Writers = 0
	}
}

// check applies the rules between flags: the reference's, then ybload's.
func (o *Options) check() []error {
	errs := o.referenceRules()
	return append(errs, o.toolRules()...)
}

// referenceRules are the combinations the reference refuses, with its
// reasons, so that a command line refused there is refused here.
func (o *Options) referenceRules() []error {
	var errs []error
	_, hasPassword := o.Set["password"]
	if hasPassword && o.Username == "" {
		errs = append(errs, errors.New("--password requires --username to be set, as the reference requires"))
	}
	if o.Username != "" && o.Password == "" {
		errs = append(errs, fmt.Errorf("--username %s needs a password (--password, --ybload_password_file or %s), as the reference requires", o.Username, ycql.PasswordEnv))
	}
	_, hasCreate := o.Set["create_table_name"]
	_, hasDrop := o.Set["drop_table_name"]
	if o.SkipWorkload && !hasDrop {
		errs = append(errs, errors.New("--skip_workload: the table name to be dropped (--drop_table_name) is expected when skipping the workload run"))
	}
	if hasCreate && hasDrop {
		errs = append(errs, errors.New("--create_table_name and --drop_table_name cannot be provided together"))
	}
	if _, keep := o.Set["keep_table"]; keep && hasDrop {
		errs = append(errs, errors.New("--keep_table and --drop_table_name cannot be provided together"))
	}
	if _, dc := o.Set["with_local_dc"]; dc && o.DisableYBPolicy {
		errs = append(errs, errors.New("--disable_yb_load_balancing_policy cannot be used with --with_local_dc"))
	}
	return errs
}

// toolRules are ybload's own: flags that contradict each other, and runs
// that could not do what they ask (no key to read, a batch larger than the
// keys, an agent with no part).
func (o *Options) toolRules() []error {
	var errs []error
	if o.NoUUID && o.UUID != "" {
		errs = append(errs, errors.New("--uuid and --nouuid exclude each other"))
	}
	if o.TokenAware && o.DisableYBPolicy {
		errs = append(errs, errors.New("--ybload_token_aware and --disable_yb_load_balancing_policy exclude each other"))
	}
	errs = append(errs, o.agentRules()...)
	if o.ReadOnly && o.UUID == "" && !o.NoUUID {
		errs = append(errs, errors.New("--read_only needs --uuid or --nouuid (the keys of an earlier run)"))
	}
	if o.MaxWrittenKey >= o.UniqueKeys {
		errs = append(errs, fmt.Errorf("--max_written_key %d must be below --num_unique_keys %d (keys are numbered from 0)", o.MaxWrittenKey, o.UniqueKeys))
	}
	if o.BatchSize > 1 && int64(o.BatchSize) > o.UniqueKeys/int64(max(o.AgentCount, 1)) {
		errs = append(errs, fmt.Errorf("--batch_size %d is larger than --num_unique_keys %d (per agent, over %d)", o.BatchSize, o.UniqueKeys, max(o.AgentCount, 1)))
	}
	if o.Readers+o.Writers == 0 && !o.SkipWorkload {
		errs = append(errs, errors.New("no threads: --num_threads_read and --num_threads_write are both 0"))
	}
	return errs
}

// agentRules check this agent's place among the agents sharing a run: both
// numbers or neither, a place among them, a key for each.
func (o *Options) agentRules() []error {
	var errs []error
	_, hasIndex := o.Set["ybload_agent_index"]
	_, hasCount := o.Set["ybload_agent_count"]
	switch {
	case hasIndex != hasCount:
		errs = append(errs, errors.New("--ybload_agent_index and --ybload_agent_count go together"))
	case o.AgentIndex >= o.AgentCount:
		errs = append(errs, fmt.Errorf("--ybload_agent_index %d: must be below --ybload_agent_count %d", o.AgentIndex, o.AgentCount))
	case int64(o.AgentCount) > o.UniqueKeys:
		errs = append(errs, fmt.Errorf("--ybload_agent_count %d: more agents than --num_unique_keys %d, some would have no key", o.AgentCount, o.UniqueKeys))
	}
	if o.AgentCount > 1 && o.RowCountCheck {
		errs = append(errs, errors.New("--ybload_row_count_check with --ybload_agent_count above 1: the table holds every agent's keys, not this agent's"))
	}
	return errs
}

// finish derives what only a valid line can: the key prefix --nouuid asks
// for (set last, since the rules tell --uuid from --nouuid by it) and this
// agent's part of the run.
func (o *Options) finish() {
	if o.NoUUID {
		o.UUID = "key"
	}
	o.Part = PartOf(o.UniqueKeys, o.NumWrites, o.NumReads, o.AgentCount, o.AgentIndex)
}
