import type { CreditsRepo, HoldOutcome, HoldRequest } from '../../store/index.ts';

/** Admissions asked of the database in natural groups: at once when none is on its way, else together with the others that wait. */
export class HoldGroups {
  private holds: Array<{ request: HoldRequest; resolve: (outcome: HoldOutcome) => void; reject: (error: unknown) => void }> = [];
  private holding = false;

  constructor(private readonly repo: CreditsRepo) {}

  /** The database's answer to one admission (a group's call failing rejects each of its admissions). */
  send(request: HoldRequest): Promise<HoldOutcome> {
    return new Promise<HoldOutcome>((resolve, reject) => {
      this.holds.push({ request, resolve, reject });
      if (!this.holding) void this.sendGroups();
    });
  }

  private async sendGroups(): Promise<void> {
    this.holding = true;
    while (this.holds.length > 0) {
      const group = this.holds.splice(0, 500);
      try {
        const outcomes = await this.repo.holdMany(group.map((g) => g.request));
        group.forEach((g, i) => g.resolve(outcomes[i]));
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.holding = false;
  }
}
