package testenv

import (
	"os"
	"os/exec"
	"os/user"
	"testing"
)

// ServiceUser is the unprivileged user the local hosts' database servers
// run as (infra/local/hosts.sh's service_user).
const ServiceUser = "ybbench"

// EnsureServiceUser makes ServiceUser exist, as hosts.sh does when a local
// cluster comes up (the same lock, the same useradd), for tests that run
// servers as that user without bringing up a local cluster first: on a
// fresh machine no earlier test may have done it. It needs root.
func EnsureServiceUser(t testing.TB) {
	t.Helper()
	if _, err := user.Lookup(ServiceUser); err == nil {
		return
	}
	Need(t, os.Geteuid() == 0, "needs root to create the service user "+ServiceUser)
	out, err := exec.Command("flock", "-w", "60", "/run/ybbench-useradd.lock", "sh", "-c",
		"getent passwd "+ServiceUser+" >/dev/null || useradd --system --user-group --no-create-home --home-dir /nonexistent"+
			" --shell /usr/sbin/nologin --comment 'ybbench database servers' "+ServiceUser).CombinedOutput()
	if err != nil {
		t.Fatalf("creating the service user %s: %v: %s", ServiceUser, err, out)
	}
	if _, err := user.Lookup(ServiceUser); err != nil {
		t.Fatalf("the service user %s after useradd: %v", ServiceUser, err)
	}
}
