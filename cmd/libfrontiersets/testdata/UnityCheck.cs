// UnityCheck: the Unity package's Store and InterestManager on a store
// baked with --engine unity at (1000, 2000): bounds, a long game loop that
// must allocate nothing, and the exceptions. Compiled with
// bindings/unity/Runtime by lib_test.go. Usage: UnityCheck.exe STORE
// CORRUPT MISSING PLAYERS TICKS.
using System;
using System.Diagnostics;
using Frontiersets;

public static class UnityCheck
{
    public static int Main(string[] args)
    {
        int players = int.Parse(args[3]), ticks = int.Parse(args[4]);
        using (var store = new Store(args[0]))
        {
            Console.WriteLine("store {0}x{1}, x {2} to {3}, z {4} to {5}", store.Width, store.Height,
                store.WorldMinX, store.WorldMaxX, store.WorldMinZ, store.WorldMaxZ);
            var m = new InterestManager(store, players);
            var xz = new float[2 * players];
            var dir = new float[2 * players];
            var to = new int[players];
            uint s = 12345;
            for (int i = 0; i < players; i++)
            {
                s = s * 1664525 + 1013904223;
                xz[2 * i] = store.WorldMinX + (store.WorldMaxX - store.WorldMinX) * (s >> 8) / 16777216f;
                s = s * 1664525 + 1013904223;
                xz[2 * i + 1] = store.WorldMinZ + (store.WorldMaxZ - store.WorldMinZ) * (s >> 8) / 16777216f;
                dir[2 * i] = (i % 3) - 1;
                dir[2 * i + 1] = (i % 5) / 2 - 1;
            }
            long sent = 0;
            Action<int> loop = n =>
            {
                for (int t = 0; t < n; t++)
                {
                    for (int i = 0; i < 2 * players; i++)
                    {
                        float v = xz[i] + 0.4f * dir[i];
                        float lo = i % 2 == 0 ? store.WorldMinX : store.WorldMinZ, hi = i % 2 == 0 ? store.WorldMaxX : store.WorldMaxZ;
                        if (v < lo || v > hi) { dir[i] = -dir[i]; v = xz[i]; }
                        xz[i] = v;
                    }
                    m.Tick(xz);
                    for (int i = 0; i < players; i++) sent += m.SendsTo(i, to);
                }
            };
            loop(100); // warm up: the JIT, the manager's first ticks
            var sw = new Stopwatch();
            int gen0 = GC.CollectionCount(0);
            long bytes = GC.GetAllocatedBytesForCurrentThread();
            sw.Start();
            loop(ticks);
            sw.Stop();
            long allocated = GC.GetAllocatedBytesForCurrentThread() - bytes;
            int collections = GC.CollectionCount(0) - gen0;
            Console.WriteLine("{0} ticks of {1} players and {2} SendsTo calls: {3} gen-0 collections, {4} bytes allocated",
                ticks, players, (long)ticks * players, collections, allocated);
            Console.Error.WriteLine("{0:F1} µs a tick with its SendsTo calls, {1} updates sent", sw.Elapsed.TotalMilliseconds * 1000 / ticks, sent);
            try
            {
                xz[0] = store.WorldMinX - 50;
                m.Tick(xz);
                Console.WriteLine("no exception off the terrain");
            }
            catch (ArgumentOutOfRangeException e)
            {
                Console.WriteLine("off the terrain: ArgumentOutOfRangeException" + (e.Message.Contains("1000 to 1470") ? ", bounds named" : ": " + e.Message));
            }
            try
            {
                store.Dispose();
                Console.WriteLine("store closed under its manager");
            }
            catch (InvalidOperationException)
            {
                Console.WriteLine("store with a manager: InvalidOperationException, not closed");
            }
            m.Dispose();
            try
            {
                m.Tick(xz);
            }
            catch (ObjectDisposedException)
            {
                Console.WriteLine("disposed: ObjectDisposedException");
            }
        }
        try { new Store(args[1]); }
        catch (FormatException) { Console.WriteLine("corrupt: FormatException"); }
        try { new Store(args[2]); }
        catch (System.IO.FileNotFoundException) { Console.WriteLine("missing: FileNotFoundException"); }
        return 0;
    }
}
