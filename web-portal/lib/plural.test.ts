import { describe, expect, it } from 'vitest';
import { counted } from './plural';

describe('counted', () => {
  it('uses the singular for exactly one and the plural otherwise, with digit grouping', () => {
    expect(counted(1, 'request')).toBe('1 request');
    expect(counted(0, 'request')).toBe('0 requests');
    expect(counted(2, 'request')).toBe('2 requests');
    expect(counted(15000, 'request')).toBe('15,000 requests');
    expect(counted(1, 'delivery', 'deliveries')).toBe('1 delivery');
    expect(counted(3, 'delivery', 'deliveries')).toBe('3 deliveries');
  });
});
