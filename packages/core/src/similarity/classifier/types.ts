/** One labelled sound: its unit vector in a similarity space and the label its uploader gave. */
export interface LabelledVector {
  vector: ArrayLike<number>;
  label: string;
}

/** What a classifier says about one vector: its best label and how sure it is (0–1). */
export interface Prediction {
  label: string;
  confidence: number;
}
