// Prints YCSB core's own text report of one measurement per input block,
// for TestIntegrationReportAgainstYCSBCore: run with YCSB core 0.17.0 on the
// class path (java -cp '<lib>/*' Measurement.java < blocks).
//
// Input: blocks separated by a line "--"; a block's first line names the
// statuses to report, in order, as NAME=COUNT words (or is empty), and its
// other lines are latencies in microseconds. Output: each block's
// measurement "READ" as TextMeasurementsExporter writes it, then "--".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import site.ycsb.Status;
import site.ycsb.measurements.OneMeasurementHdrHistogram;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;

public class Measurement {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    List<String> block = new ArrayList<>();
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("--")) {
        print(block);
        block.clear();
      } else {
        block.add(line);
      }
    }
    if (!block.isEmpty()) {
      print(block);
    }
    System.out.flush();
  }

  private static void print(List<String> block) throws Exception {
    OneMeasurementHdrHistogram m = new OneMeasurementHdrHistogram("READ", new Properties());
    for (int i = 1; i < block.size(); i++) {
      m.measure(Integer.parseInt(block.get(i).trim()));
    }
    for (String word : block.get(0).trim().split(" ")) {
      if (word.isEmpty()) {
        continue;
      }
      String[] kv = word.split("=");
      Status s = (Status) Status.class.getField(kv[0]).get(null);
      for (int i = 0; i < Integer.parseInt(kv[1]); i++) {
        m.reportStatus(s);
      }
    }
    // The exporter closes the stream it writes to: give it one of its own.
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    TextMeasurementsExporter e = new TextMeasurementsExporter(out);
    m.exportMeasurements(e);
    e.close();
    System.out.print(out.toString("UTF-8"));
    System.out.println("--");
  }
}
