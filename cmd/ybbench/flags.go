package main

import (
	"github.com/spf13/cobra"

	"github.com/ybbench/ybbench/pipeline"
)

// specFlags registers the run settings' flags on c. Every flag comes from
// the settings table (pipeline.Settings): the presets, then one flag per
// setting.
func (o *options) specFlags(c *cobra.Command) {
	f := c.Flags()
	f.SortFlags = false // the settings table's order
	for _, p := range pipeline.Presets() {
		v := new(bool)
		f.BoolVar(v, p.Name, false, p.FlagUsage())
		name := p.Name
		c.PreRun = chain(c.PreRun, func(c *cobra.Command, _ []string) {
			if c.Flags().Changed(name) {
				o.presets[name] = v
			}
		})
	}
	for _, st := range pipeline.Settings() {
		v := &settingFlag{typ: st.Type}
		name := pipeline.FlagName(st.Name)
		f.Var(v, name, st.FlagUsage())
		if st.Switch {
			f.Lookup(name).NoOptDefVal = "true" // --accept-new-host-keys alone says yes
		}
		field := st.Name
		c.PreRun = chain(c.PreRun, func(c *cobra.Command, _ []string) {
			if c.Flags().Changed(name) {
				o.set[field] = &v.val
			}
		})
	}
}

// runFlag is --run, the run a stage works on.
func (o *options) runFlag(c *cobra.Command) {
	c.Flags().StringVar(&o.run, "run", "", "the run: its directory or its id (under the runs directory)")
}
