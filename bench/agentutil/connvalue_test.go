package agentutil

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Every quoted value reads back as itself through pgx's own parser of
// keyword/value connection strings.
func TestConnValueRoundTrips(t *testing.T) {
	for _, v := range []string{"plain", "", "two words", `it's`, `back\slash`, `'\' mixed \'`, "ünïcode"} {
		cfg, err := pgconn.ParseConfig("host=h dbname=" + ConnValue(v))
		if err != nil {
			t.Errorf("%q → %s: %v", v, ConnValue(v), err)
			continue
		}
		if cfg.Database != v {
			t.Errorf("%q → %s → %q", v, ConnValue(v), cfg.Database)
		}
	}
}
