package agentrun

import (
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ybbench/ybbench/internal/exitcode"
	"github.com/ybbench/ybbench/record/repetition"
)

// YCSB is one `ybload load|run <binding>` invocation: YCSB's load and run,
// each workload on a fresh table that one agent prepares first.
type YCSB struct {
	Phase   Phase  // the workload file (workloads/<Workload>) and phase
	Binding string // ysql, ycql or null (the agent's own, no database)
	// PropertiesFile is the 0600 file with the connection (-P).
	PropertiesFile string
	RecordCount    int64
	// Agent names the agent in its records; SummaryFile is its JSON
	// summary (every phase: the prepare phase's says what DDL it ran).
	Agent       string
	SummaryFile string
	// Load and run: threads, the tick records, the shared start instant,
	// where the live metrics are served ("": off).
	Threads     int
	RecordsFile string
	StartAt     time.Time
	MetricsAddr string
	// Prepare over YSQL: the table layout (range or hash).
	DDL string
	// Load: this agent's share of the key space.
	InsertStart, InsertCount int64
	// Run: this agent's share of the operations, which agent it is, the
	// time bound (0: none), the warm-up before it (0: none, as in YCSB,
	// which has none: only a sweep's steps have one, ybload's warmuptime).
	OperationCount         int64
	AgentIndex, AgentCount int
	MaxExecutionTime       time.Duration
	Warmup                 time.Duration
	// Properties are extra -p settings (load and run), in name order.
	Properties []Property
	Conn       YCSBConn
}

// Property is one extra YCSB property.
type Property struct{ Name, Value string }

// YCSBConn is the connection, written to the properties file.
type YCSBConn struct {
	// Servers are the database's endpoints: over YSQL one JDBC URL each;
	// over YCQL the hosts, on the first one's port (the binding takes one).
	Servers  []Server
	Database string // YSQL
	User     string // "" with authentication off (YCQL)
	// Password is in the properties file over YSQL, in PasswordFile over
	// YCQL (the binding's cassandra.password.file).
	Password     string
	PasswordFile string
}

// Server is one database endpoint as the agent is given it.
type Server struct {
	Addr string
	Port int
}

func buildYCSB(in Input) (*YCSB, error) {
	p := in.Params
	y := &YCSB{Phase: in.Phase, Binding: in.Binding, PropertiesFile: in.file(".properties"), RecordCount: p.Records,
		Agent: in.Host, SummaryFile: in.file(".json")}
	switch in.Binding {
	case "ysql":
		if err := needEndpoints("YSQL", in.DB.YSQL); err != nil {
			return nil, err
		}
		for _, e := range in.DB.YSQL {
			y.Conn.Servers = append(y.Conn.Servers, Server{Addr: e.Addr, Port: e.Port})
		}
		y.Conn.Database, y.Conn.User, y.Conn.Password = in.DB.Database, in.DB.User, in.DB.Password
	case "ycql":
		if err := needEndpoints("YCQL", in.DB.YCQL); err != nil {
			return nil, err
		}
		for _, e := range in.DB.YCQL {
			y.Conn.Servers = append(y.Conn.Servers, Server{Addr: e.Addr, Port: in.DB.YCQL[0].Port})
		}
		if in.DB.User != "" {
			y.Conn.User, y.Conn.Password, y.Conn.PasswordFile = in.DB.User, in.DB.Password, in.file(".password")
		}
	case "null":
		// The agent's null binding reaches no database: the pipeline runs
		// whole with it where none can run (the fake-parts test tier), and
		// the endpoints are not given to it.
	default:
		return nil, exitcode.Errorf(exitcode.Config, "unknown YCSB binding %q", in.Binding)
	}
	switch in.Phase.Phase {
	case Prepare:
		if in.Binding == "ysql" {
			y.DDL = p.DDL
		}
		return y, nil
	case Load:
		y.Threads = threadsOf(int64(p.LoadThreads), in.Count, in.Index)
		y.InsertStart, y.InsertCount = Split(p.Records, in.Count, in.Index)
	case Run:
		y.Threads = threadsOf(int64(p.Threads), in.Count, in.Index)
		_, y.OperationCount = Split(p.Operations, in.Count, in.Index)
		y.AgentIndex, y.AgentCount = in.Index, in.Count
		y.MaxExecutionTime = p.Duration.Truncate(time.Second)
		y.Warmup = in.warmup()
	default:
		return nil, exitcode.Errorf(exitcode.Tool, "YCSB has no phase %q", in.Phase.Phase)
	}
	y.RecordsFile, y.StartAt = in.file(".jsonl"), in.StartAt
	var err error
	if y.MetricsAddr, err = in.metricsAddr(); err != nil {
		return nil, err
	}
	rep := ""
	if in.Phase.Rep > 0 {
		rep = repetition.Tag(in.Phase.Rep)
	}
	r := strings.NewReplacer("{workload}", in.Phase.Workload, "{phase}", in.Phase.Phase, "{repetition}", rep)
	for k, v := range in.Properties {
		y.Properties = append(y.Properties, Property{Name: k, Value: r.Replace(v)})
	}
	if in.LateAfter > 0 && in.Phase.Phase == Run && !slices.ContainsFunc(y.Properties, func(p Property) bool { return p.Name == lateAfterProperty }) {
		y.Properties = append(y.Properties, Property{Name: lateAfterProperty, Value: in.LateAfter.String()})
	}
	if target := in.agentTarget(); target > 0 {
		y.Properties = slices.DeleteFunc(y.Properties, func(p Property) bool { return p.Name == "target" })
		y.Properties = append(y.Properties, Property{Name: "target", Value: strconv.FormatInt(target, 10)})
	}
	sort.Slice(y.Properties, func(i, j int) bool { return y.Properties[i].Name < y.Properties[j].Name })
	return y, nil
}

// lateAfterProperty is ybload's YCSB property for the late-start
// tolerance; agent_properties may give it too, and then win.
const lateAfterProperty = "ybload.late.after"

// Args is the command line: YCSB's own, with ybload's properties.
func (y *YCSB) Args() []string {
	cmd := "load"
	if y.Phase.Phase == Run {
		cmd = "run"
	}
	a := []string{cmd, y.Binding, "-P", path.Join("workloads", y.Phase.Workload), "-P", y.PropertiesFile}
	set := func(k, v string) { a = append(a, "-p", k+"="+v) }
	set("recordcount", itoa(y.RecordCount))
	switch y.Phase.Phase {
	case Prepare:
		set("ybload.prepare.only", "true")
		switch y.Binding {
		case "ycql":
			set("ycql.createtable", "true")
			set("ycql.droptable", "true")
		case "ysql":
			set("ysql.createdatabase", "true")
			set("ysql.droptable", "true")
			set("ysql.createtable", "true")
			set("ysql.ddl", y.DDL)
		}
		set("ybload.agent", y.Agent)
		set("ybload.summary", y.SummaryFile)
		return a
	case Load:
		set("insertstart", itoa(y.InsertStart))
		set("insertcount", itoa(y.InsertCount))
	case Run:
		set("operationcount", itoa(y.OperationCount))
		set("ybload.agent.index", strconv.Itoa(y.AgentIndex))
		set("ybload.agent.count", strconv.Itoa(y.AgentCount))
		if y.MaxExecutionTime > 0 {
			set("maxexecutiontime", itoa(int64(y.MaxExecutionTime/time.Second)))
		}
		if y.Warmup > 0 {
			set("warmuptime", itoa(int64(y.Warmup/time.Second)))
		}
	}
	set("threadcount", strconv.Itoa(y.Threads))
	a = append(a, "-s")
	set("ybload.agent", y.Agent)
	set("ybload.records", y.RecordsFile)
	set("ybload.summary", y.SummaryFile)
	set("ybload.start.at", itoa(y.StartAt.UnixMilli()))
	if y.MetricsAddr != "" {
		set("ybload.metrics.addr", y.MetricsAddr)
	}
	for _, p := range y.Properties {
		set(p.Name, p.Value)
	}
	return a
}

// Files are the properties file and, over YCQL with authentication on, the
// password file it names.
func (y *YCSB) Files() []File {
	var b strings.Builder
	c := y.Conn
	prop := func(k, v string) { b.WriteString(k + "=" + escapeProperty(v) + "\n") }
	if y.Binding == "ycql" {
		b.WriteString("# written by ybbench for this run\n")
		hosts := make([]string, len(c.Servers))
		for i, s := range c.Servers {
			hosts[i] = s.Addr
		}
		prop("hosts", strings.Join(hosts, ","))
		prop("port", strconv.Itoa(c.Servers[0].Port))
		if c.User == "" {
			return []File{{Path: y.PropertiesFile, Content: b.String()}}
		}
		// Authentication on: the user, and where its password is.
		prop("cassandra.username", c.User)
		prop("cassandra.password.file", c.PasswordFile)
		return []File{{Path: y.PropertiesFile, Content: b.String()}, secretFile(c.PasswordFile, c.Password)}
	}
	if y.Binding == "null" {
		// Nothing to connect to: the file is there because -P names it.
		b.WriteString("# written by ybbench for this run: the null binding connects to nothing\n")
		return []File{{Path: y.PropertiesFile, Content: b.String()}}
	}
	b.WriteString("# written by ybbench for this run; readable by its owner only\n")
	prop("db.driver", "org.postgresql.Driver")
	var urls strings.Builder
	for _, s := range c.Servers {
		urls.WriteString("jdbc:postgresql://" + s.Addr + ":" + strconv.Itoa(s.Port) + "/" + c.Database + ";")
	}
	prop("db.url", urls.String())
	prop("db.user", c.User)
	prop("db.passwd", c.Password)
	return []File{{Path: y.PropertiesFile, Content: b.String()}}
}

// escapeProperty writes a value as a Java properties file reads it back:
// backslashes, line breaks and leading blanks escaped.
func escapeProperty(v string) string {
	v = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\f", `\f`).Replace(v)
	if strings.HasPrefix(v, " ") {
		v = `\` + v
	}
	return v
}
