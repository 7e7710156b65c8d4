package hashgen;

import com.yugabyte.driver.core.policies.PartitionAwarePolicy;
import com.yugabyte.driver.core.utils.Jenkins;
import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints partition-hash vectors computed by the YugabyteDB Java driver
 * itself, for ybbench's Go port to be checked against. One line per key:
 * the key's bytes in hex ("-" when empty), the driver's 64-bit Jenkins hash
 * with seed 97 as unsigned hex, and the driver's 16-bit partition key.
 */
public final class HashGen {
  private HashGen() {}

  public static void main(String[] args) throws Exception {
    // The 16-bit fold is private in the driver; call it as it is.
    Method getKey = PartitionAwarePolicy.class.getDeclaredMethod("getKey", byte[].class);
    getKey.setAccessible(true);

    String jar = new File(PartitionAwarePolicy.class.getProtectionDomain()
        .getCodeSource().getLocation().toURI()).getName();
    System.out.println("# YCQL partition-hash vectors produced by running the reference code:");
    System.out.println("#   " + jar + " (com.yugabyte:cassandra-driver-core from Maven Central)");
    System.out.println("#   PartitionAwarePolicy.getKey(byte[]) and Jenkins.hash64(byte[], 97)");
    System.out.println("#   java " + System.getProperty("java.version")
        + ", generator bench/ycql/testdata/hashgen");
    System.out.println("# columns: key bytes hex (- = empty) <TAB> hash64 unsigned hex <TAB> partition key (0..65535)");

    for (byte[] k : keys()) {
      long h = Jenkins.hash64(k, 97L);
      int key = (Integer) getKey.invoke(null, (Object) k);
      System.out.printf("%s\t%016x\t%d%n", hex(k), h, key);
    }
  }

  private static List<byte[]> keys() {
    List<byte[]> out = new ArrayList<>();
    // Every length 0..80 (all tail cases, one to three 24-byte blocks),
    // with bytes above 0x7f so that sign extension would show.
    for (int n = 0; n <= 80; n++) {
      byte[] b = new byte[n];
      for (int i = 0; i < n; i++) {
        b[i] = (byte) (i * 37 + n * 11 + 5);
      }
      out.add(b);
    }
    // All-0xff keys around the block boundaries.
    for (int n : new int[] {7, 8, 15, 16, 17, 23, 24, 25, 48}) {
      byte[] b = new byte[n];
      java.util.Arrays.fill(b, (byte) 0xff);
      out.add(b);
    }
    // Keys the workloads write: yb-sample-apps (--nouuid and UUID prefixes),
    // YCSB's hashed keys, and values of a few other key types.
    String[] text = {
      "key:0", "key:1", "key:2", "key:9", "key:10", "key:99", "key:12345",
      "key:999999", "key:1000000", "key:999999999", "key:1000000000",
      "5f0e3c1a-9d2b-4c7e-8a61-0b2f4e6d8c9a:0", "5f0e3c1a-9d2b-4c7e-8a61-0b2f4e6d8c9a:123",
      "user6284781860667377211", "user8517097267634966620", "user1820151046732198393",
      "user4052466453699787802", "user3232700585171816769", "user1000385178204227360",
      "user2744965632448235251", "user1", "user00000005", "a", "ab", "abc",
      "h\u00e9llo w\u00f6rld", "\u65e5\u672c\u8a9e\u306e\u30ad\u30fc",
    };
    for (String s : text) {
      out.add(s.getBytes(StandardCharsets.UTF_8));
    }
    for (long v : new long[] {0L, 1L, -1L, 42L, Long.MAX_VALUE, Long.MIN_VALUE, 1234567890123L}) {
      out.add(ByteBuffer.allocate(8).putLong(v).array()); // bigint
    }
    for (int v : new int[] {0, 1, -1, 7, Integer.MAX_VALUE}) {
      out.add(ByteBuffer.allocate(4).putInt(v).array()); // int
    }
    // Pseudo-random keys from a fixed LCG (reproducible without java.util.Random's algorithm).
    long x = 0x2545F4914F6CDD1DL;
    for (int k = 0; k < 40; k++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      int n = (int) ((x >>> 33) % 64);
      byte[] b = new byte[n];
      for (int i = 0; i < n; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        b[i] = (byte) (x >>> 56);
      }
      out.add(b);
    }
    return out;
  }

  private static String hex(byte[] b) {
    if (b.length == 0) {
      return "-";
    }
    StringBuilder sb = new StringBuilder(2 * b.length);
    for (byte x : b) {
      sb.append(String.format("%02x", x & 0xff));
    }
    return sb.toString();
  }
}
