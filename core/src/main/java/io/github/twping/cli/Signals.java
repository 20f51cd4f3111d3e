package io.github.twping.cli;

import io.github.twping.ffm.ProcessSignals;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * The signal handlers of the three programs ({@link Main} for twping, {@link TwampdMain}, {@link AgentMain}):
 * one place that installs a Java handler for SIGINT, SIGTERM or SIGHUP, after setting the signal back to its
 * default when it was ignored at start (a script's background job, {@code nohup}), as a C program's
 * {@code signal(2)} does ({@link ProcessSignals#unignore}).
 *
 * <p>The JDK's handler API is {@code sun.misc.Signal} in the {@code jdk.unsupported} module. javac warns on
 * every source reference to it (an "internal proprietary API" warning that {@code @SuppressWarnings} cannot
 * silence, and the build compiles with {@code -Werror}), so this class reaches it only by name, through
 * method handles and a proxy for {@code sun.misc.SignalHandler}. When the class is missing (a JDK without
 * {@code jdk.unsupported}) or the JVM keeps the signal ({@code -Xrs}), {@link #handle} returns false and the
 * signal keeps its default action.
 */
final class Signals {
    /** The signals the programs handle. */
    enum Name {
        INT(ProcessSignals.SIGINT), TERM(ProcessSignals.SIGTERM), HUP(ProcessSignals.SIGHUP);

        final int number;

        Name(int number) {
            this.number = number;
        }
    }

    private Signals() {
    }

    /**
     * Runs {@code action} on the JVM's signal thread each time {@code signal} arrives, from now on.
     *
     * @return false when the handler could not be installed (the signal keeps its default action)
     */
    static boolean handle(Name signal, Runnable action) {
        Api api = Api.INSTANCE;
        if (api == null) {
            return false;
        }
        ProcessSignals.unignore(signal.number);
        try {
            Object sig = api.create.invoke(signal.name());
            Object handler = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {api.handlerType},
                    new Handler(action));
            api.handle.invoke(sig, handler);
            return true;
        } catch (IllegalArgumentException unavailable) {
            return false; // the JVM keeps this signal (-Xrs), or the platform has none by that name
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sun.misc.Signal.handle failed", t);
        }
    }

    /** {@code sun.misc.SignalHandler.handle(Signal)} runs the action; Object's methods answer as identity. */
    private record Handler(Runnable action) implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            return switch (method.getName()) {
                case "handle" -> {
                    action.run();
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "Signals.Handler";
            };
        }
    }

    /** {@code new Signal(String)} and {@code Signal.handle(Signal, SignalHandler)}, looked up once; null when absent. */
    private record Api(MethodHandle create, MethodHandle handle, Class<?> handlerType) {
        static final Api INSTANCE = lookUp();

        private static Api lookUp() {
            try {
                Class<?> signal = Class.forName("sun.misc.Signal");
                Class<?> handler = Class.forName("sun.misc.SignalHandler");
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle create = lookup.findConstructor(signal, MethodType.methodType(void.class, String.class));
                MethodHandle handle = lookup.findStatic(signal, "handle", MethodType.methodType(handler, signal, handler));
                return new Api(create, handle, handler);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }
}
