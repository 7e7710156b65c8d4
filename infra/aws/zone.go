package aws

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ybbench/ybbench/infra"
)

// placement is the zone the run's hosts go to and why.
type placement struct {
	zone, reason string
}

// placeZone decides the run's zone from what the region offers: zones,
// the region's zones (sorted); offered, each of the run's types → the
// zones of the region that offer it. The zone asked for is kept when it
// is one of the region's and offers every type. When it offers not all
// of them: with fallback, the first zone (sorted) that offers every type,
// recorded with the reason; without, an error naming the zones that offer
// each missing type and zone_fallback. A type no zone offers is an error
// of its own (mistyped, or not in this region).
func placeZone(region, zone string, zones, runTypes []string, offered map[string][]string, fallback bool) (placement, []error) {
	var errs []error
	for _, t := range runTypes {
		if len(offered[t]) == 0 {
			errs = append(errs, fmt.Errorf("instance type %s is not offered in any zone of %s (mistyped, or not in this region?)", t, region))
		}
	}
	if !slices.Contains(zones, zone) {
		errs = append(errs, &infra.SettingError{Setting: "zone", Err: fmt.Errorf("%s is not an availability zone of %s; its zones: %s",
			zone, region, strings.Join(zones, ", "))})
		return placement{}, errs
	}
	if len(errs) > 0 {
		return placement{}, errs
	}
	var missing []string
	for _, t := range runTypes {
		if !slices.Contains(offered[t], zone) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return placement{zone: zone, reason: "as set"}, nil
	}
	var all []string
	for _, z := range zones {
		ok := true
		for _, t := range runTypes {
			ok = ok && slices.Contains(offered[t], z)
		}
		if ok {
			all = append(all, z)
		}
	}
	if fallback && len(all) > 0 {
		return placement{zone: all[0], reason: fmt.Sprintf("zone_fallback: %s not offered in %s; %s is the first zone of %s offering %s",
			strings.Join(missing, " and "), zone, all[0], region, strings.Join(runTypes, " and "))}, nil
	}
	for _, t := range missing {
		msg := fmt.Sprintf("instance type %s is not offered in %s; zones of %s that offer it: %s", t, zone, region, strings.Join(offered[t], ", "))
		if fallback {
			msg += "; zone_fallback found no zone offering every type of the run (" + strings.Join(runTypes, ", ") + ")"
		} else {
			msg += "; set zone to one of them, or zone_fallback=true to use the first that offers every type of the run"
		}
		errs = append(errs, &infra.SettingError{Setting: "zone", Err: fmt.Errorf("%s", msg)})
	}
	return placement{}, errs
}
