package io.github.twping.pacing;

/**
 * A {@link PacingClock} on simulated time: reading costs {@code readCostNs}, a spin step {@code spinStepNs},
 * and a park sleeps the requested time plus {@code parkOvershootNs}. Counts calls; allocates nothing. Shared
 * with the benchmark module's tests through core's test jar.
 */
public final class SimulatedClock implements PacingClock {
    public long nowNs;
    public long readCostNs;
    public long spinStepNs;
    public long parkOvershootNs;
    public long parks;
    public long spins;
    public long lastParkRequestNs = -1;
    /** How many of the next parks wake up spuriously, after half the requested time. */
    public int spuriousWakeUps;

    public SimulatedClock(long nowNs, long readCostNs, long spinStepNs, long parkOvershootNs) {
        this.nowNs = nowNs;
        this.readCostNs = readCostNs;
        this.spinStepNs = spinStepNs;
        this.parkOvershootNs = parkOvershootNs;
    }

    @Override
    public long nanoTime() {
        long result = nowNs;
        nowNs += readCostNs;
        return result;
    }

    @Override
    public void parkNanos(long ns) {
        parks++;
        lastParkRequestNs = ns;
        if (spuriousWakeUps > 0) {
            spuriousWakeUps--;
            nowNs += Math.max(0, ns) / 2;
        } else {
            nowNs += Math.max(0, ns) + parkOvershootNs;
        }
    }

    @Override
    public void onSpinWait() {
        spins++;
        nowNs += spinStepNs;
    }
}
