package terraform

import (
	"context"

	"github.com/ybbench/ybbench/infra"
)

// Up brings the module's hosts up and returns them: Init, then Apply (plan
// to the plan file, apply that plan), then Hosts, stopping at the first
// failure. It is all a provider's Create asks of its stack; the working
// directory's secret files stay private after each step.
func (s *Stack) Up(ctx context.Context) ([]infra.Host, error) {
	if err := s.Init(ctx); err != nil {
		return nil, err
	}
	if err := s.Apply(ctx); err != nil {
		return nil, err
	}
	return s.Hosts(ctx)
}
