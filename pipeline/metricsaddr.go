package pipeline

import (
	"fmt"
	"strconv"
	"strings"
)

// metricsPort reads the metrics_addr setting: a port, "9464" or ":9464",
// which every agent serves on at its own client's private address (the
// address is the client's, so only the port is the run's to choose); 0
// when off. Port 0 is refused: each agent would pick its own, and no one
// would know where to scrape.
func metricsPort(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, ":"))
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q: want a port, 1 to 65535, or :PORT (the agents serve at their own client's private address)", v)
	}
	return n, nil
}

// checkMetricsAddr refuses a metrics_addr that is no port.
func (s *Spec) checkMetricsAddr() []error {
	if _, err := metricsPort(s.MetricsAddr); err != nil {
		return []error{fmt.Errorf("%s: %w", s.where("metrics_addr"), err)}
	}
	return nil
}

// agentMetricsPort is the port the agents serve their live metrics on (0:
// off); a spec that did not validate serves none.
func (s *Spec) agentMetricsPort() int {
	n, _ := metricsPort(s.MetricsAddr)
	return n
}
