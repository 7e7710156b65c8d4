// FailingDB is a YCSB core DB for the oracle tests: its inserts succeed
// until the failingdb.insertfail-th call of an instance (counted from 1;
// 0 never fails), and the init of the failingdb.initfail-th instance made
// (counted from 1; 0 never fails) throws. Every insert sleeps
// failingdb.sleepms so that the run's time is not 0 ms.
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

public class FailingDB extends DB {
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private int inserts;

  @Override
  public void init() throws DBException {
    int n = INSTANCES.incrementAndGet();
    if (n == Integer.parseInt(getProperties().getProperty("failingdb.initfail", "0"))) {
      throw new DBException("init of instance " + n + " fails on purpose");
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return Status.OK;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return Status.OK;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return Status.OK;
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      Thread.sleep(Long.parseLong(getProperties().getProperty("failingdb.sleepms", "0")));
    } catch (InterruptedException e) {
      return Status.ERROR;
    }
    inserts++;
    return inserts == Integer.parseInt(getProperties().getProperty("failingdb.insertfail", "0")) ? Status.ERROR : Status.OK;
  }

  @Override
  public Status delete(String table, String key) {
    return Status.OK;
  }
}
