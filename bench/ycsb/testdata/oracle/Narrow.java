// Prints Java's (int) of each double read from standard input (one per
// line, in Double.parseDouble's syntax), and Double.intValue() beside it,
// for TestIntegrationJavaIntOfDouble: java Narrow.java < doubles
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Narrow {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      double d = Double.parseDouble(line.trim());
      System.out.println((int) d + " " + Double.valueOf(d).intValue());
    }
  }
}
