package parts

import (
	"context"
	"errors"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// TestAWSJanitorNeedsARegion: the aws entry's janitor refuses an empty
// region as a setting error (exit 2) and gives no janitor, not a typed
// nil; with a region it makes one without calling AWS.
func TestAWSJanitorNeedsARegion(t *testing.T) {
	p, ok := Builtin().Provider("aws")
	if !ok || p.Janitor == nil {
		t.Fatal("the aws entry has no janitor")
	}
	j, err := p.Janitor(context.Background(), JanitorOptions{})
	var se *infra.SettingError
	if j != nil || !errors.As(err, &se) || se.Setting != "region" || exitcode.Of(err) != exitcode.Config {
		t.Errorf("janitor %v, error %v", j, err)
	}
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	if j, err := p.Janitor(context.Background(), JanitorOptions{Region: "us-west-2"}); err != nil || j == nil {
		t.Errorf("janitor %v, error %v", j, err)
	}
}
