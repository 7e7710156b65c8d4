package cassandra

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// record puts into the deployment what the run needs to reach the cluster
// (endpoints, processes) and what the report and ledger say of it: each
// host's Java and transfer, what the hosts changed, the yaml keys written,
// the JVM, the artifacts and the readiness seen.
func (f *Flavor) record(dep *provision.Deployment, p plan, hosts []hostInstall, obs observation, yamls map[string]map[string]string, tb tarball, rf int) {
	set := dep.Settings
	dep.Version = obs.states[0].ReleaseVersion
	for i, h := range p.db {
		dep.YCQL = append(dep.YCQL, provision.Endpoint{Host: h.Name, Addr: h.PrivateIP, Port: NativePort})
		dep.Processes = append(dep.Processes, provision.Process{Host: h.Name, Name: Name, PIDFile: layoutOf(h).PIDFile})
		set["java@"+h.Name] = hosts[i].java
		set["java.version@"+h.Name] = hosts[i].javaVersion
		set["source.transfer@"+h.Name] = hosts[i].transfer
		if hosts[i].installed != "" {
			set["java.installed@"+h.Name] = hosts[i].installed
		}
		set["host_id@"+h.Name] = obs.states[i].HostID
		if len(hosts[i].changes) > 0 {
			if dep.HostChanges == nil {
				dep.HostChanges = map[string][]string{}
			}
			dep.HostChanges[h.Name] = hosts[i].changes
		}
	}
	recordYAML(set, p.db, yamls)
	set["heap"] = p.set.heap
	set["jvm.options"] = strings.Join(p.src.Options, " ")
	set["ring_delay_ms"] = strconv.FormatInt(f.cfg.ringDelay.Milliseconds(), 10)
	set["gossip_settle"] = "skipped (-Dcassandra.skip_wait_for_gossip_to_settle=0)"
	set["source"] = p.src.Dir
	set["source.jar"] = p.src.Jar
	set["source.tarball"] = tb.Name
	set["source.sha256"] = tb.SHA256
	set["schema_version"] = obs.states[0].SchemaVersion
	set["ready.seen"] = obs.summary()
	set["topology"] = fmt.Sprintf("%d nodes, num_tokens 1 each, seed %s; replication is per keyspace (the agents create theirs)", len(p.db), p.db[0].Name)
	if rf > 0 {
		set["rf"] = strconv.Itoa(rf)
	}
}

// flattenYAML turns a rendered cassandra.yaml into key → value: scalars as
// written, lists joined with ",", the seed provider as its seeds.
func flattenYAML(text string) (map[string]string, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("cassandra: the rendered cassandra.yaml is not YAML: %w", err)
	}
	out := map[string]string{}
	for k, v := range doc {
		switch v := v.(type) {
		case []any:
			var items []string
			for _, it := range v {
				if m, ok := it.(map[string]any); ok && k == "seed_provider" {
					if ps, ok := m["parameters"].([]any); ok && len(ps) > 0 {
						if pm, ok := ps[0].(map[string]any); ok {
							items = append(items, fmt.Sprint(pm["seeds"]))
						}
					}
					continue
				}
				items = append(items, fmt.Sprint(it))
			}
			out[k] = strings.Join(items, ",")
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out, nil
}

// recordYAML puts the yaml keys into the settings: "yaml.<key>" when every
// node has the same value, else "yaml.<key>@<host>" per node.
func recordYAML(set map[string]string, hosts []infra.Host, yamls map[string]map[string]string) {
	keys := map[string]bool{}
	for _, y := range yamls {
		for k := range y {
			keys[k] = true
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		same := true
		first := yamls[hosts[0].Name][k]
		for _, h := range hosts[1:] {
			if yamls[h.Name][k] != first {
				same = false
			}
		}
		if same {
			set["yaml."+k] = first
			continue
		}
		for _, h := range hosts {
			set["yaml."+k+"@"+h.Name] = yamls[h.Name][k]
		}
	}
}
