// Replay: walkers' positions through the interest manager from C#, printed
// as testdata/interest.c prints each tick (lib_test.go compares both with
// interest.Joint). Usage: Replay.exe STORE WALKERS.
using System;
using System.Globalization;
using System.IO;
using System.Text;
using Frontiersets;

public static class Replay
{
    public static int Main(string[] args)
    {
        var words = File.ReadAllText(args[1]).Split((char[])null, StringSplitOptions.RemoveEmptyEntries);
        int n = int.Parse(words[0]), ticks = int.Parse(words[1]), w = 2;
        var err = new Native.Error();
        long store, im;
        if (Native.Open(args[0], out store, ref err) != 0 || Native.InterestNew(store, n, out im, ref err) != 0)
        {
            Console.WriteLine("error: " + err);
            return 1;
        }
        var xy = new double[2 * n];
        var to = new int[n];
        var sb = new StringBuilder();
        for (int t = 0; t < ticks; t++)
        {
            for (int i = 0; i < 2 * n; i++) xy[i] = double.Parse(words[w++], CultureInfo.InvariantCulture);
            Native.TickResult r;
            if (Native.InterestTick(im, xy, n, out r, ref err) != 0)
            {
                Console.WriteLine("error: " + err);
                return 1;
            }
            sb.AppendFormat("tick {0} exits {1} open {2} packets {3}\n", t, r.Exits, r.Open, r.Packets);
            for (int i = 0; i < n; i++)
            {
                int k;
                Native.InterestSendsTo(im, i, to, n, out k, ref err);
                if (k == 0) continue;
                sb.Append(i).Append(':');
                for (int j = 0; j < k; j++) sb.Append(' ').Append(to[j]);
                sb.Append('\n');
            }
        }
        Native.InterestFree(im, ref err);
        Native.Close(store, ref err);
        Console.Write(sb.ToString());
        return 0;
    }
}
