package cassandra

import (
	"path"
	"strconv"
	"time"
)

// command is a node's JVM command line: the cache's JVM options, the
// heap, the jamm agent, and the node's own directories and properties.
func command(java string, l layout, a artifacts, heap string, ringDelay time.Duration) []string {
	cmd := append([]string{java}, a.Options...)
	return append(cmd,
		"-Xms"+heap, "-Xmx"+heap,
		"-javaagent:"+path.Join(l.Home, a.Jamm),
		"-Djava.io.tmpdir="+l.Tmp,
		"-Djna.tmpdir="+l.Tmp,
		"-Dcassandra.config=file://"+path.Join(l.Conf, "cassandra.yaml"),
		"-Dlogback.configurationFile=file://"+path.Join(l.Conf, "logback.xml"),
		"-Dcassandra.logdir="+l.Logs,
		"-Dcassandra.storagedir="+l.DataRoots[0],
		"-Dcassandra-foreground=yes",
		"-Dcassandra.skip_wait_for_gossip_to_settle=0",
		"-Dcassandra.ring_delay_ms="+strconv.FormatInt(ringDelay.Milliseconds(), 10),
		"-Dcassandra.triggers_dir="+path.Join(l.Conf, "triggers"),
		"-XX:HeapDumpPath="+l.Tmp,
		"-XX:ErrorFile="+path.Join(l.Logs, "hs_err_%p.log"),
		"-cp", l.Conf+":"+path.Join(l.Home, "lib")+"/*",
		"org.apache.cassandra.service.CassandraDaemon",
	)
}
