using System;
using System.Diagnostics;
using Frontiersets;

public static class TickTime
{
    public static int Main(string[] args)
    {
        int n = int.Parse(args[1]), ticks = int.Parse(args[2]);
        var err = new Native.Error();
        long store, im;
        Native.Info info;
        if (Native.Open(args[0], out store, ref err) != 0 || Native.GetInfo(store, out info, ref err) != 0 ||
            Native.InterestNew(store, n, out im, ref err) != 0) { Console.WriteLine(err); return 1; }
        var rng = new Random(7);
        var xy = new double[2 * n];
        var to = new int[n];
        for (int i = 0; i < 2 * n; i++) xy[i] = rng.NextDouble() * ((i % 2 == 1 ? info.Height : info.Width) - 1);
        var sw = new Stopwatch();
        long sends = 0;
        for (int t = 0; t < ticks; t++)
        {
            for (int i = 0; i < 2 * n; i++)
            {
                double lim = (i % 2 == 1 ? info.Height : info.Width) - 1;
                xy[i] = Math.Min(Math.Max(xy[i] + (rng.NextDouble() - 0.5) * 1.2, 0), lim);
            }
            if (t == 1) sw.Start();
            Native.TickResult r;
            if (Native.InterestTick(im, xy, n, out r, ref err) != 0) { Console.WriteLine(err); return 1; }
            for (int i = 0; i < n; i++) { int k; Native.InterestSendsTo(im, i, to, n, out k, ref err); sends += k; }
        }
        sw.Stop();
        Console.WriteLine("C#: {0} players, {1} ticks: {2:F3} ms per tick (tick + every player's send list), {3} sends", n, ticks, sw.Elapsed.TotalMilliseconds / (ticks - 1), sends);
        return 0;
    }
}
