package yugabyte

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/provision"
)

func TestPlanInstall(t *testing.T) {
	dir := t.TempDir()
	tarball := filepath.Join(dir, "yugabyte-2.20.0.0-standin-linux-x86_64.tar.gz")
	if err := os.WriteFile(tarball, []byte("not really a tarball"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := provision.FileSHA256(tarball)
	if err != nil {
		t.Fatal(err)
	}
	url := "https://software.yugabyte.com/releases/2.20.1.3/yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz"

	secrets := t.TempDir()
	p, err := planInstall(sampleCluster(), provision.FlavorSpec{Source: tarball, SecretsDir: secrets}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.rf != 3 || len(p.masters) != 3 || len(p.db) != 3 || p.src.sha256 != sum || p.src.local != tarball {
		t.Errorf("plan %+v", p)
	}
	if !p.auth || p.secrets != secrets || p.mark != (provision.Mark{RunID: "r1", Version: "unknown"}) {
		t.Errorf("plan: auth %v, secrets %q, mark %+v", p.auth, p.secrets, p.mark)
	}
	p, err = planInstall(sampleCluster(), provision.FlavorSpec{Source: url, RF: 1, NoAuth: true, RunID: "r1", ToolVersion: "v1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.rf != 1 || len(p.masters) != 1 || p.src.url != url || p.src.name != "yugabyte-2.20.1.3-b3-linux-x86_64.tar.gz" || p.src.sha256 != "" ||
		p.src.shaURL != url+".sha" || p.auth || p.mark.Version != "v1" {
		t.Errorf("plan %+v", p)
	}
	// A signed URL: the checksum's URL is the path + .sha, the query kept.
	p, err = planInstall(sampleCluster(), provision.FlavorSpec{Source: "https://u:SECRET@dl.example/a/yugabyte-2.20.1.3.tar.gz?token=SECRET", NoAuth: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.src.shaURL != "https://u:SECRET@dl.example/a/yugabyte-2.20.1.3.tar.gz.sha?token=SECRET" || p.src.name != "yugabyte-2.20.1.3.tar.gz" {
		t.Errorf("signed URL: sha URL %q, name %q", p.src.shaURL, p.src.name)
	}
	// Plain http with the sha256 given: accepted, checked against it, no .sha fetched.
	sha := strings.Repeat("ab", 32)
	p, err = planInstall(sampleCluster(), provision.FlavorSpec{Source: "http://mirror.example/yugabyte-2.20.1.3.tar.gz", SHA256: sha, NoAuth: true}, false)
	if err != nil || p.src.sha256 != sha || p.src.shaURL != "" {
		t.Errorf("http with sha256: %+v, %v", p.src, err)
	}

	host := func(f func(h *infra.Host)) *infra.Cluster {
		c := sampleCluster()
		f(&c.Hosts[1])
		return c
	}
	cases := []struct {
		name string
		c    *infra.Cluster
		s    provision.FlavorSpec
		want []string
	}{
		{"http without sha256", sampleCluster(), provision.FlavorSpec{Source: "http://mirror.example/yugabyte-2.20.1.3.tar.gz", NoAuth: true},
			[]string{"plain http:// needs its sha256 (--yb-sha256)", "the .sha file from the same server proves nothing"}},
		{"http with a token, without sha256", sampleCluster(), provision.FlavorSpec{Source: "http://u:SECRET@mirror.example/yugabyte.tar.gz?t=SECRET", NoAuth: true},
			[]string{"http://REDACTED@mirror.example/yugabyte.tar.gz?REDACTED: a tarball over plain http://"}},
		{"url with a space", sampleCluster(), provision.FlavorSpec{Source: "https://x/a b.tar.gz", NoAuth: true}, []string{"not a URL"}},
		{"no secrets dir", sampleCluster(), provision.FlavorSpec{Source: url}, []string{"no secrets directory"}},
		{"run id not the cluster's", sampleCluster(), provision.FlavorSpec{Source: url, NoAuth: true, RunID: "r2"}, []string{`FlavorSpec.RunID "r2" is not the cluster's name "r1"`}},
		{"no run id", &infra.Cluster{Hosts: sampleCluster().Hosts}, provision.FlavorSpec{Source: url, NoAuth: true}, []string{"no run id"}},
		{"trust with auth", sampleCluster(), provision.FlavorSpec{Source: url, SecretsDir: "/s", Settings: map[string]string{"ysql_hba_conf_csv": "host all all 0.0.0.0/0 trust"}}, []string{"a trust rule"}},
		{"rf above hosts", sampleCluster(), provision.FlavorSpec{Source: url, RF: 5}, []string{"replication factor 5 needs at least 5 db hosts", "has 3"}},
		{"no db hosts", &infra.Cluster{}, provision.FlavorSpec{Source: url}, []string{"no db hosts"}},
		{"no source", sampleCluster(), provision.FlavorSpec{}, []string{"no source"}},
		{"ftp", sampleCluster(), provision.FlavorSpec{Source: "ftp://x/y.tar.gz"}, []string{"only http and https"}},
		{"not a tarball", sampleCluster(), provision.FlavorSpec{Source: "https://x/y.zip"}, []string{"not a .tar.gz"}},
		{"bad sha", sampleCluster(), provision.FlavorSpec{Source: url, SHA256: "abc"}, []string{"not 64 hex digits"}},
		{"missing file", sampleCluster(), provision.FlavorSpec{Source: filepath.Join(dir, "nope.tar.gz"), NoAuth: true}, []string{"no such file"}},
		{"wrong sha", sampleCluster(), provision.FlavorSpec{Source: tarball, SHA256: strings.Repeat("0", 64), NoAuth: true}, []string{"sha256 is " + sum, "FlavorSpec.SHA256 says 000"}},
		{"hostname", host(func(h *infra.Host) { h.PrivateIP = "db2.internal" }), provision.FlavorSpec{Source: url}, []string{`"db2": private_ip "db2.internal" is not an IP address`}},
		{"duplicate ip", host(func(h *infra.Host) { h.PrivateIP = "10.0.0.1" }), provision.FlavorSpec{Source: url}, []string{"private_ip 10.0.0.1 is also \"db1\"'s"}},
		{"relative base", host(func(h *infra.Host) { h.Base = "runs/x" }), provision.FlavorSpec{Source: url}, []string{`directory "runs/x": not an absolute path`}},
		{"root base", host(func(h *infra.Host) { h.Base = "/" }), provision.FlavorSpec{Source: url}, []string{`directory "/": a system directory`}},
		{"unclean data", host(func(h *infra.Host) { h.DataDirs = []string{"/mnt/../d0"} }), provision.FlavorSpec{Source: url}, []string{"not clean"}},
		{"comma data", host(func(h *infra.Host) { h.DataDirs = []string{"/mnt/a,b"} }), provision.FlavorSpec{Source: url}, []string{`directory "/mnt/a,b": want letters`}},
		{"no user", host(func(h *infra.Host) { h.ServiceUser = "" }), provision.FlavorSpec{Source: url}, []string{"service_user \"\""}},
		{"root user", host(func(h *infra.Host) { h.ServiceUser = "root" }), provision.FlavorSpec{Source: url}, []string{"service_user is root"}},
		{"bad setting", sampleCluster(), provision.FlavorSpec{Source: url, Settings: map[string]string{"tserver.nope": "1"}}, []string{"--nope is not a flag this flavor knows"}},
		{"all at once", host(func(h *infra.Host) { h.Base = ""; h.PrivateIP = "" }), provision.FlavorSpec{}, []string{"no source", "directory \"\": empty", "private_ip \"\""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planInstall(tc.c, tc.s, false)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the error shows the URL's secret: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d (bad configuration)", exitcode.Of(err), exitcode.Config)
			}
		})
	}
}

func TestDBHostsForStop(t *testing.T) {
	c := sampleCluster()
	c.Hosts[2].DataDirs = []string{"/"}
	if _, err := dbHostsForStop(c); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("got %v", err)
	}
	hosts, err := dbHostsForStop(sampleCluster())
	if err != nil || len(hosts) != 3 {
		t.Errorf("got %d hosts, %v", len(hosts), err)
	}
}

func TestRecordInstallVersion(t *testing.T) {
	hosts := []hostInstall{{host: infra.Host{Name: "a"}, software: "/b/yugabyte/yugabyte-2.20.1.3", install: records{{Key: "sha256", Value: "x"}}}}
	for _, tc := range []struct{ version, want, err string }{
		{"", "2.20.1.3", ""},
		{"2.20.1.3", "2.20.1.3", ""},
		{"2.20.1.3-b3", "2.20.1.3-b3", ""},
		{"2.20.1.4", "", "FlavorSpec.Version is 2.20.1.4, but the tarball holds yugabyte-2.20.1.3/"},
	} {
		dep := &provision.Deployment{Settings: map[string]string{}}
		err := recordInstall(dep, plan{rf: 3}, hosts, tc.version)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v", tc.version, err)
			}
			continue
		}
		if err != nil || dep.Version != tc.want {
			t.Errorf("%q: version %q, %v", tc.version, dep.Version, err)
		}
	}
	two := append(hosts, hostInstall{host: infra.Host{Name: "b"}, software: "/b/yugabyte/yugabyte-2.20.1.3", install: records{{Key: "sha256", Value: "y"}}})
	if err := recordInstall(&provision.Deployment{Settings: map[string]string{}}, plan{}, two, ""); err == nil || !strings.Contains(err.Error(), "different tarballs") {
		t.Errorf("got %v", err)
	}
}
