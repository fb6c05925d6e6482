// GameLoop: interest management in a game loop from C#, through the Unity
// package's Store and InterestManager (bindings/unity/Runtime) — as a
// Unity server script would run it each network tick, here as a console
// program with players walking on the terrain. Build and run with
// Debian's mono (docs/engines/unity.md):
//
//   make lib
//   mcs examples/csharp/GameLoop.cs bindings/unity/Runtime/Store.cs bindings/unity/Runtime/Frontiersets.cs -out:GameLoop.exe
//   LD_LIBRARY_PATH=build mono GameLoop.exe STORE [PLAYERS [TICKS]]
//
// Output: one line, the updates sent against all-to-all.
using System;
using Frontiersets;

public static class GameLoop
{
    public static int Main(string[] args)
    {
        int players = 64, ticks = 200;
        if (args.Length < 1 || args.Length > 3 || (args.Length > 1 && !int.TryParse(args[1], out players)) ||
            (args.Length > 2 && !int.TryParse(args[2], out ticks)) || players < 1 || ticks < 1)
        {
            Console.Error.WriteLine("usage: GameLoop.exe STORE [PLAYERS [TICKS]]");
            return 2;
        }
        try
        {
            using (var store = new Store(args[0]))
            using (var im = new InterestManager(store, players))
            {
                var xz = new float[2 * players]; // x, z of each player, metres
                var heading = new float[2 * players];
                var to = new int[players];
                var rng = new Random(1);
                for (int i = 0; i < players; i++)
                {
                    xz[2 * i] = store.WorldMinX + (float)rng.NextDouble() * (store.WorldMaxX - store.WorldMinX);
                    xz[2 * i + 1] = store.WorldMinZ + (float)rng.NextDouble() * (store.WorldMaxZ - store.WorldMinZ);
                    heading[2 * i] = (float)rng.NextDouble() * 2 - 1;
                    heading[2 * i + 1] = (float)rng.NextDouble() * 2 - 1;
                }
                long sent = 0;
                for (int t = 0; t < ticks; t++) // 20 Hz
                {
                    for (int i = 0; i < 2 * players; i++) // players run at up to 8 m/s
                    {
                        float lo = i % 2 == 0 ? store.WorldMinX : store.WorldMinZ, hi = i % 2 == 0 ? store.WorldMaxX : store.WorldMaxZ;
                        float v = xz[i] + 0.4f * heading[i];
                        if (v < lo || v > hi) { heading[i] = -heading[i]; v = xz[i]; }
                        xz[i] = v;
                    }
                    im.Tick(xz);
                    for (int i = 0; i < players; i++)
                    {
                        int n = im.SendsTo(i, to);
                        sent += n; // send player i's update to to[0..n) here
                    }
                }
                Console.WriteLine("{0} players, {1} ticks: {2} updates sent, all-to-all {3}", players, ticks, sent, (long)players * (players - 1) * ticks);
            }
        }
        catch (Exception e) when (e is System.IO.IOException || e is FormatException || e is ArgumentException || e is InvalidOperationException)
        {
            Console.Error.WriteLine("GameLoop: " + e.Message);
            return 1;
        }
        return 0;
    }
}
