// Starts DynamoDB Local (AWS's DynamoDBLocal.jar, on the class path) bound to 127.0.0.1 only.
// DynamoDB Local has no bind-address option: its server is a Jetty Server made with a port
// alone, which listens on every interface. This builds the same server from the same command
// line arguments and sets its connectors' host to loopback before starting it, so nothing on
// the machine's other addresses can reach the unauthenticated emulator. Compiled and cached
// by infra/local/dynamodb.ts (javac, from the JDK).
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    Connector[] connectors = jetty.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local made no connector");
    for (Connector connector : connectors) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
  }
}
