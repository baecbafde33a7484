// Runs one class's main once for each line of standard input, the line's tab-separated fields
// its arguments: many calls of one of Kafka's command-line tools for the cost of one JVM.
// tools/kafka-cluster adds a secured cluster's ACLs with it: a JVM per kafka-acls call costs
// ~1.5 s of CPU each, and seven of them side by side took 14 s on two shared cores.
// Kafka's tools end the JVM themselves when they fail (Exit.exit(1)), which fails the run.
//
//   java -cp 'JARS/*' tools/kafka/MainPerLine.java CLASS < LINES
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

public class MainPerLine {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: MainPerLine CLASS < LINES (each line: tab-separated arguments)");
            System.exit(2);
        }
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null;) {
            if (line.isBlank()) continue;
            try {
                main.invoke(null, (Object) line.split("\t"));
            } catch (InvocationTargetException e) {
                System.err.println(args[0] + " failed on: " + line.replace('\t', ' '));
                e.getCause().printStackTrace();
                System.exit(1);
            }
        }
    }
}
